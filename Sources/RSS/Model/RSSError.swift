/// What an RSS tree change refuses, in qBittorrent's words (the WebAPI answers them with 409).
public enum RSSError: Error, Equatable, Sendable, CustomStringConvertible {
    case feedURLExists(String)
    case feedMissing(String)
    case cannotMoveRoot
    case itemMissing(String)
    case moveIntoItself(newWording: Bool)
    case cannotDeleteRoot
    case invalidPath(String)
    case pathExists(String)
    case parentMissing(String)
    case store(String)

    public var description: String {
        switch self {
        case .feedURLExists(let url): "RSS feed with given URL already exists: \(url)."
        case .feedMissing(let path): "Feed doesn't exist: \(path)."
        case .cannotMoveRoot: "Cannot move root folder."
        case .itemMissing(let path): "Item doesn't exist: \(path)."
        case .moveIntoItself(let newWording):
            newWording ? "Can't move a folder into itself or its subfolders." : "Couldn't move folder into itself."
        case .cannotDeleteRoot: "Cannot delete root folder."
        case .invalidPath(let path): "Incorrect RSS Item path: \(path)."
        case .pathExists(let path): "RSS item with given path already exists: \(path)."
        case .parentMissing(let path): "Parent folder doesn't exist: \(path)."
        case .store(let why): "Couldn't save RSS session data. Error: \"\(why)\""
        }
    }
}
