/// What a form body holds: its fields, and the parts that came with a file name.
public struct FormBody: Sendable, Equatable {
    public var fields: [String: String]
    public var files: [UploadedFile]

    public init(fields: [String: String] = [:], files: [UploadedFile] = []) {
        self.fields = fields
        self.files = files
    }
}

/// A file part of a multipart body.
public struct UploadedFile: Sendable, Equatable {
    public var field: String
    public var filename: String
    public var data: [UInt8]

    public init(field: String, filename: String, data: [UInt8]) {
        self.field = field
        self.filename = filename
        self.data = data
    }
}
