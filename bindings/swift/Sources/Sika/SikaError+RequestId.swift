// Idiom only: one property for the request id the core put on the error (ADR 0053).

extension SikaError {
    /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one Sika
    /// sent with the call's last attempt. `nil` for the errors no request preceded
    /// (`InvalidInput`, `Configuration`, `Cancelled`, `Storage`, `ClaimLost`) and for errors
    /// read from bytes.
    public var requestId: String? {
        switch self {
        case .Unauthorized(let id), .InvalidCountryCode(let id), .NoProvidersFound(let id),
             .TransactionNotFound(let id), .InvalidReference(let id), .Timeout(let id):
            id
        case .Api(_, _, let id), .RateLimited(_, let id), .Network(_, let id), .UnexpectedResponse(_, _, let id),
             .ChargeOutcomeUnknown(_, _, let id):
            id
        case .InvalidInput, .Cancelled, .Configuration, .Storage, .ClaimLost:
            nil
        }
    }
}
