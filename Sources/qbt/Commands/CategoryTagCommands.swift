import ArgumentParser
import Foundation
import QBTClient

struct CategoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "category", abstract: "List, create, edit and remove categories, or set torrents' category.",
        subcommands: [ListCategories.self, AddCategory.self, EditCategory.self, RemoveCategory.self, SetCategory.self],
        defaultSubcommand: ListCategories.self)

    struct ListCategories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List categories.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let client = try await global.client()
            if global.json { return Output.printJSON(try await client.json("torrents/categories")) }
            let categories = try await client.categories()
            if categories.isEmpty { return Output.note("No categories.") }
            print(Output.table(["NAME", "SAVE PATH"], categories.keys.sorted().map { [$0, categories[$0]!.savePath] }, flex: 1))
        }
    }

    struct AddCategory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create a category.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The category's name (a/b for subcategories).") var name: String
        @Option(help: "Its save path.") var savePath: String = ""
        func run() async throws {
            try await global.client().call("torrents/createCategory", .form([("category", name), ("savePath", savePath)]))
            if global.json { Output.printJSON(["category": name, "savePath": savePath]) } else { print("Created category \(name).") }
        }
    }

    struct EditCategory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a category's save path.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The category's name.") var name: String
        @Option(help: "Its new save path.") var savePath: String
        func run() async throws {
            try await global.client().call("torrents/editCategory", .form([("category", name), ("savePath", savePath)]))
            if global.json { Output.printJSON(["category": name, "savePath": savePath]) } else { print("Category \(name) saves to \(savePath).") }
        }
    }

    struct RemoveCategory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove categories (their torrents stay).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Category names.") var names: [String]
        func run() async throws {
            try await global.client().call("torrents/removeCategories", .form([("categories", names.joined(separator: "\n"))]))
            if global.json { Output.printJSON(["removed": names]) } else { print("Removed \(names.joined(separator: ", ")).") }
        }
    }

    struct SetCategory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Put torrents in a category (\"\" for none).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The category.") var category: String
        @OptionGroup var targets: HashArguments
        func run() async throws {
            let client = try await global.client()
            let resolved = try await client.resolve(targets.hashes)
            do {
                try await client.torrentsAction("setCategory", hashes: resolved, [("category", category)])
            } catch QBTClientError.conflict {
                throw QBTClientError.notFound("no category \"\(category)\": create it with `qbt category add \(category)`")
            }
            if global.json { Output.printJSON(["hashes": resolved, "category": category]) }
            else { print(category.isEmpty ? "Cleared the category." : "Set category \(category).") }
        }
    }
}

struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag", abstract: "List, create and delete tags, or tag and untag torrents.",
        subcommands: [ListTags.self, CreateTags.self, DeleteTags.self, AddTags.self, RemoveTags.self],
        defaultSubcommand: ListTags.self)

    struct ListTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List tags.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let tags = try await global.client().tags()
            if global.json { return Output.printJSON(tags) }
            if tags.isEmpty { return Output.note("No tags.") }
            tags.forEach { print($0) }
        }
    }

    /// `createTags`/`deleteTags`: tags as arguments.
    static func define(_ global: GlobalOptions, _ action: String, _ tags: [String], done: String) async throws {
        try await global.client().call("torrents/\(action)", .form([("tags", tags.joined(separator: ","))]))
        if global.json { Output.printJSON([done.lowercased(): tags]) } else { print("\(done) \(tags.joined(separator: ", ")).") }
    }

    /// `addTags`/`removeTags` on torrents: tags comma-separated.
    static func apply(_ global: GlobalOptions, _ action: String, _ tags: String, _ hashes: [String], key: String, done: String) async throws {
        let client = try await global.client()
        let resolved = try await client.resolve(hashes)
        try await client.torrentsAction(action, hashes: resolved, [("tags", tags)])
        if global.json { Output.printJSON(["hashes": resolved, key: tags]) } else { print("\(done) \(tags).") }
    }

    struct CreateTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create tags.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Tags.") var tags: [String]
        func run() async throws { try await TagCommand.define(global, "createTags", tags, done: "Created") }
    }

    struct DeleteTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete tags from everything.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Tags.") var tags: [String]
        func run() async throws { try await TagCommand.define(global, "deleteTags", tags, done: "Deleted") }
    }

    struct AddTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Tag torrents (tags comma-separated).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Tags, comma-separated.") var tags: String
        @OptionGroup var targets: HashArguments
        func run() async throws { try await TagCommand.apply(global, "addTags", tags, targets.hashes, key: "added", done: "Tagged") }
    }

    struct RemoveTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Untag torrents (tags comma-separated).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Tags, comma-separated.") var tags: String
        @OptionGroup var targets: HashArguments
        func run() async throws { try await TagCommand.apply(global, "removeTags", tags, targets.hashes, key: "removed", done: "Untagged") }
    }
}
