import Foundation
import Sika

// The shape of tests/fixtures/cases.json (snake_case keys, decoded with convertFromSnakeCase).
// Each expected record has an init from the decoded Swift value, so a case is checked with one
// XCTAssertEqual that prints both sides on a mismatch.

struct FixtureManifest: Decodable {
    let cases: [FixtureCase]
}

struct FixtureCase: Decodable {
    let name: String
    let operation: String
    let httpStatus: Int32
    let bodyFile: String
    let expect: Expectation
}

struct Expectation: Decodable {
    let providers: [ExpectedProvider]?
    let banks: [ExpectedBank]?
    let transaction: ExpectedTransaction?
    let charge: ExpectedCharge?
    let error: ExpectedError?
}

struct ExpectedProvider: Decodable, Equatable {
    let id: Int64
    let name, code: String
    let active: Bool
    let country, currency, providerType, logo: String
    let createdAtMs, updatedAtMs: Int64?

    init(_ p: MobileMoneyProvider) {
        (id, name, code, active) = (p.id, p.name, p.code, p.active)
        (country, currency, providerType, logo) = (p.country, p.currency, p.providerType, p.logo)
        (createdAtMs, updatedAtMs) = (epochMs(p.createdAt), epochMs(p.updatedAt))
    }
}

struct ExpectedBank: Decodable, Equatable {
    let id: Int64
    let name, code: String
    let active: Bool
    let country, currency, accountType: String
    let createdAtMs, updatedAtMs: Int64?

    init(_ b: Bank) {
        (id, name, code, active, country, currency) = (b.id, b.name, b.code, b.active, b.country, b.currency)
        accountType = kindText(b.accountType)
        (createdAtMs, updatedAtMs) = (epochMs(b.createdAt), epochMs(b.updatedAt))
    }
}

struct ExpectedCustomer: Decodable, Equatable {
    let id: Int64?
    let name, phoneNumber, email: String?
    let createdAtMs, updatedAtMs: Int64?

    init(_ c: Customer) {
        (id, name, phoneNumber, email) = (c.id, c.name, c.phoneNumber, c.email)
        (createdAtMs, updatedAtMs) = (epochMs(c.createdAt), epochMs(c.updatedAt))
    }
}

struct ExpectedCustomField: Decodable, Equatable {
    let displayName, variableName, value: String
}

struct ExpectedTransaction: Decodable, Equatable {
    let id: Int64?
    let domain: String?
    let amount: Amount
    let currency: String
    let dueDate: String?
    let hasInvoice: Bool?
    let invoiceNumber, description: String?
    let txRef, status: String
    let gatewayRef, paymentType: String?
    let createdAtMs, updatedAtMs: Int64?
    let customer: ExpectedCustomer?
    let customFields: [ExpectedCustomField]
    let merchantAction: String
    let isFinal: Bool

    init(_ t: Transaction) {
        (id, domain, amount, currency) = (t.id, t.domain, t.amount, t.currency)
        (dueDate, hasInvoice, invoiceNumber, description) = (t.dueDate, t.hasInvoice, t.invoiceNumber, t.descriptionText)
        (txRef, gatewayRef, status) = (t.txRef, t.gatewayRef, kindText(t.status))
        paymentType = t.paymentType.map { kindText($0) }
        (createdAtMs, updatedAtMs) = (epochMs(t.createdAt), epochMs(t.updatedAt))
        customer = t.customer.map(ExpectedCustomer.init)
        customFields = t.customFields.map {
            ExpectedCustomField(displayName: $0.displayName, variableName: $0.variableName, value: $0.value)
        }
        // The core's own methods, as the fixture's values were computed in Rust.
        merchantAction = kindText(t.status.merchantAction())
        isFinal = t.status.isFinal()
    }
}

struct ExpectedCharge: Decodable, Equatable {
    let httpStatus: Int32
    let status: Bool?
    let message, dataJson: String?

    init(_ c: ChargeResponse) {
        (httpStatus, status, message, dataJson) = (c.httpStatus, c.status, c.message, c.dataJson)
    }
}

/// An error by kind; `httpStatus` and `message` are compared only where the case gives them.
struct ExpectedError: Decodable, Equatable {
    let kind: String
    let httpStatus: Int32?
    let message: String?

    init(_ error: SikaError, comparedWith expected: ExpectedError) {
        let (kind, httpStatus, message) = errorParts(error)
        self.kind = kind
        self.httpStatus = expected.httpStatus == nil ? nil : httpStatus
        self.message = expected.message == nil ? nil : message
    }
}

/// An error's variant name as the fixtures spell it, with an `Api` error's status and message.
func errorParts(_ error: SikaError) -> (kind: String, httpStatus: Int32?, message: String?) {
    switch error {
    case .Unauthorized: ("Unauthorized", nil, nil)
    case .InvalidCountryCode: ("InvalidCountryCode", nil, nil)
    case .NoProvidersFound: ("NoProvidersFound", nil, nil)
    case .TransactionNotFound: ("TransactionNotFound", nil, nil)
    case .InvalidReference: ("InvalidReference", nil, nil)
    case .InvalidInput: ("InvalidInput", nil, nil)
    case .Api(let status, let message, _): ("Api", status, message)
    case .RateLimited: ("RateLimited", nil, nil)
    case .Timeout: ("Timeout", nil, nil)
    case .Network: ("Network", nil, nil)
    case .UnexpectedResponse(let status, _, _): ("UnexpectedResponse", status, nil)
    case .ChargeOutcomeUnknown: ("ChargeOutcomeUnknown", nil, nil)
    case .Cancelled: ("Cancelled", nil, nil)
    case .Configuration: ("Configuration", nil, nil)
    case .Storage: ("Storage", nil, nil)
    case .ClaimLost: ("ClaimLost", nil, nil)
    // A kind added to the core later: a compiler warning here, and its message in the
    // mismatch, rather than a suite that no longer builds.
    @unknown default: ("\(error)", nil, nil)
    }
}

// The fixtures write enums as `Kind` or `Kind:value`.

func kindText(_ status: TransactionStatus) -> String {
    switch status {
    case .successful: "Successful"
    case .pending: "Pending"
    case .failed: "Failed"
    case .abandoned: "Abandoned"
    case .reversed: "Reversed"
    case .unknown(let value): "Unknown:\(value)"
    }
}

func kindText(_ paymentType: PaymentType) -> String {
    switch paymentType {
    case .card: "Card"
    case .mobileMoney: "MobileMoney"
    case .other(let value): "Other:\(value)"
    }
}

func kindText(_ accountType: BankAccountType) -> String {
    switch accountType {
    case .nuban: "Nuban"
    case .accountNumber: "AccountNumber"
    case .other(let value): "Other:\(value)"
    }
}

func kindText(_ check: PaymentCheck) -> String {
    switch check {
    case .confirmed: "Confirmed"
    case .notYet: "NotYet"
    case .notPaid: "NotPaid"
    case .mismatch: "Mismatch"
    }
}

func kindText(_ decision: WebhookDecision) -> String {
    switch decision {
    case .fulfil: "Fulfil"
    case .investigate: "Investigate"
    case .ignore: "Ignore"
    case .retryLater: "RetryLater"
    case .reject: "Reject"
    }
}

func kindText(_ action: MerchantAction) -> String {
    switch action {
    case .fulfilOrder: "FulfilOrder"
    case .awaitWebhookOrReverify: "AwaitWebhookOrReverify"
    case .informCustomerAllowRetry: "InformCustomerAllowRetry"
    case .contactCustomer: "ContactCustomer"
    case .updateOrderAndRefund: "UpdateOrderAndRefund"
    case .investigate: "Investigate"
    }
}
