import HTTPKit
import HTTPTypes
import RSS

/// qBittorrent answers every refusal of an RSS tree or rule change with 409 and its message.
extension RSSError: HTTPAnswer {
    public var status: HTTPResponse.Status { .conflict }
    public var message: String { description }
}
