import HTTPKit
import HTTPTypes
import Search

/// A search plugin or Torznab indexer that cannot be installed: the request named something unusable.
extension SearchService.InstallError: HTTPAnswer {
    public var status: HTTPResponse.Status { .badRequest }
    public var message: String { description }
}
