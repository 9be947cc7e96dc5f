// Idiom only: the core's status functions as properties, as Swift code expects to read them
// (`transaction.status.isFinal`). Both call the Rust core; no decision is made here.

extension TransactionStatus {
    /// Whether the status will not change by waiting (all but pending and unknown).
    public var isFinal: Bool { Sika.isFinal(status: self) }

    /// What the merchant should do for this status.
    public var merchantAction: MerchantAction { Sika.merchantAction(status: self) }
}
