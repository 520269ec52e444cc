import HTTPTypes

/// Header names HTTPTypes has no constant for, made once: a name is validated each time one is made, and these are
/// read or written on every request.
extension HTTPField.Name {
    public static let xForwardedFor = Self("X-Forwarded-For")!
    public static let xForwardedHost = Self("X-Forwarded-Host")!
    public static let xForwardedPrefix = Self("X-Forwarded-Prefix")!
    public static let xForwardedProto = Self("X-Forwarded-Proto")!
    static let xXSSProtection = Self("X-XSS-Protection")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let crossOriginOpenerPolicy = Self("Cross-Origin-Opener-Policy")!
}
