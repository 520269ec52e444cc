import HTTPKit
import HTTPTypes
import Music

/// A track that cannot be served as it is (not an MP3, unreadable, changed on disk): 422.
extension MusicError: HTTPAnswer {
    public var status: HTTPResponse.Status { .init(code: 422) }
    public var message: String { description }
}
