/// A duration as seconds with their fraction, for rates and reports.
extension Duration {
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
