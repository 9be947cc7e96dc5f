// Idiom only: an amount as Swift code holds it. The text is the core's and the core checks it
// (a text that is not a decimal throws SikaError.InvalidInput where it is used, nothing sent).
import Foundation

/// An exact amount of money: the decimal text the core wrote (`"100.10"`), scale included, and
/// its value as a `Decimal` (`100.1`) for arithmetic and comparison. `Amount` everywhere in the
/// API. Foundation's `Decimal` cannot keep trailing zeros, so this type keeps the text
/// (ADR 0019).
///
/// Write an amount as text, never through a `Double`: `let amount: Amount = "25.50"`,
/// `Amount("25.50")` or `Amount(decimal)`. Two amounts are equal when their values are
/// (`"100.1" == "100.10"`); `text` and `description` tell them apart. Codable as its text.
public struct ExactAmount: Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral
{
    /// The exact decimal text, scale included: `"100.10"`. What the core receives and JSON holds.
    public let text: String

    /// Its value (`Decimal.nan` if the text is not a decimal: the core rejects such an amount).
    public var decimal: Decimal {
        Decimal(string: text, locale: Self.posix) ?? .nan
    }

    /// An amount from its decimal text, kept as written (`"25.50"`).
    public init(_ text: String) {
        self.text = text
    }

    /// An amount from a `Decimal` (its shortest text: `Decimal(string: "25.50")` is `"25.5"`).
    public init(_ decimal: Decimal) {
        text = NSDecimalNumber(decimal: decimal).stringValue
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }

    public init(integerLiteral value: Int64) {
        self.init(String(value))
    }

    /// The text with its scale, as the service and the core write it.
    public var description: String { text }

    public static func == (lhs: ExactAmount, rhs: ExactAmount) -> Bool {
        lhs.decimal == rhs.decimal
    }

    public static func < (lhs: ExactAmount, rhs: ExactAmount) -> Bool {
        lhs.decimal < rhs.decimal
    }

    // Equal values hash alike, whatever their scale.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(decimal)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
}

extension ExactAmount: Codable {
    /// The exact text as a JSON string (`"100.10"`): a JSON number is read back as a binary
    /// float by most parsers. The same as the core's `toJson()`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// Reads an amount from its JSON text, accepted only if the core reads it as a decimal (the
    /// core's own parser decides, through its reader of an `ExpectedPayment`). Other text
    /// (`"NaN"`, `"ten"`, `""`) is a `DecodingError.dataCorrupted` whose underlying error is the
    /// core's `SikaError.InvalidInput`: a stored order never comes back holding a non-amount.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let probe = String(decoding: try JSONEncoder().encode(["amount": text, "currency": "GHS"]), as: UTF8.self)
        do {
            self = try expectedPaymentFromJson(json: probe).amount
        } catch {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "not a decimal amount: \(error)", underlyingError: error))
        }
    }
}
