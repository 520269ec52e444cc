import Cluster
import HTTPKit
import HTTPTypes

extension ClusterError: HTTPAnswer {
    public var status: HTTPResponse.Status {
        switch self {
        case .nodeDown, .notTaken, .unreachable, .noneUp, .targetDown: .serviceUnavailable
        case .unanswered: .gatewayTimeout
        case .unknownNode: .badRequest
        case .notWhole, .notACluster: .conflict
        }
    }
}
