import HTTPKit
import HTTPTypes
import Store

/// The store's refusals as answers: the cluster's database out of reach is 503 (nothing was recorded: try again when
/// it answers), with the store's own words for where and why.
extension StoreError: HTTPAnswer {
    public var status: HTTPResponse.Status {
        switch self {
        case .unreachable: .serviceUnavailable
        case .badLocation: .internalServerError
        }
    }

    public var message: String { description }
}
