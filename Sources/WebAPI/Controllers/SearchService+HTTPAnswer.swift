import HTTPKit
import HTTPTypes
import Search

/// How the search service's refusals answer, in qBittorrent's words.
extension SearchService.Failure: HTTPAnswer {
    public var status: HTTPResponse.Status {
        switch self {
        case .unknownJob: .notFound
        case .noPython, .tooManySearches, .tooManySearchesOverall, .offsetOutOfRange: .conflict
        }
    }

    public var message: String {
        switch self {
        case .noPython: "Python must be installed to use the Search Engine."
        case .tooManySearches: "Unable to create more than \(SearchService.maxConcurrentSearches) concurrent searches."
        case .tooManySearchesOverall:
            "Unable to create more than \(SearchService.maxRunningSearchesOverall) concurrent searches on this server: try again when one has finished."
        case .unknownJob: "Not Found"
        case .offsetOutOfRange: "Offset is out of range"
        }
    }
}
