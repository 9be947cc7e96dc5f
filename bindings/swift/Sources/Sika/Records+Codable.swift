// Idiom only: records and their enums as Swift's Codable, in the core's JSON shape (ADR 0019).
// Every record is encoded from the core's own `toJson()`, so Swift writes what Python and
// Kotlin write: the service's field names, statuses as the service's text, amounts as exact
// decimal strings ("100.10"), timestamps as ISO 8601 UTC with milliseconds.
import Foundation

/// A record the core writes as JSON (`toJson()`): `Encodable` through that text.
public protocol CoreJSONEncodable: Encodable {
    /// The record as the core's JSON text.
    func toJson() -> String
}

extension CoreJSONEncodable {
    /// Writes the core's JSON through any `Encoder`: as a nested value inside a merchant's own
    /// `Codable` type, with the encoder's own formatting.
    public func encode(to encoder: any Encoder) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(toJson().utf8))
        try value.encode(to: encoder)
    }
}

extension Bank: CoreJSONEncodable {}
extension ChargeRequest: CoreJSONEncodable {}
extension ChargeResponse: CoreJSONEncodable {}
extension CountryInfo: CoreJSONEncodable {}
extension CustomField: CoreJSONEncodable {}
extension Customer: CoreJSONEncodable {}
extension ExpectedPayment: CoreJSONEncodable {}
extension MobileMoneyProvider: CoreJSONEncodable {}
extension Transaction: CoreJSONEncodable {}
extension WebhookEvent: CoreJSONEncodable {}

/// An enum the service writes as text: encoded as the core's text of it (its `description`),
/// decoded by the core's own parser of that text (an unknown text is kept as `.other`/`.unknown`).
public protocol ServiceTextCodable: Codable, CustomStringConvertible {
    /// The core's parser of the service's text.
    static func fromServiceText(_ text: String) -> Self
}

extension ServiceTextCodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        self = Self.fromServiceText(try decoder.singleValueContainer().decode(String.self))
    }
}

extension TransactionStatus: ServiceTextCodable {
    public static func fromServiceText(_ text: String) -> TransactionStatus {
        transactionStatusFromText(text: text)
    }
}

extension PaymentType: ServiceTextCodable {
    public static func fromServiceText(_ text: String) -> PaymentType {
        paymentTypeFromText(text: text)
    }
}

extension BankAccountType: ServiceTextCodable {
    public static func fromServiceText(_ text: String) -> BankAccountType {
        bankAccountTypeFromText(text: text)
    }
}
