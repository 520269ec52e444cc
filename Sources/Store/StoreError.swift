/// What the store itself refuses (the databases' own errors pass through as they are).
public enum StoreError: Error, CustomStringConvertible {
    /// The cluster's database URL cannot be used; the text says what to write instead.
    case badLocation(String)
    /// The cluster's database does not answer, or refuses this node; the text names where and why.
    case unreachable(String)

    public var description: String {
        switch self {
        case .badLocation(let why): "the cluster's database: \(why)"
        case .unreachable(let why): "the cluster's database: \(why)"
        }
    }
}
