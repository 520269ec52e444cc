import Cluster
import HTTPKit
import HTTPTypes

extension ClusterError: HTTPAnswer {
    public var status: HTTPResponse.Status {
        switch self {
        case .nodeDown, .notTaken, .unreachable, .noneUp: .serviceUnavailable
        case .unanswered: .gatewayTimeout
        }
    }
}
