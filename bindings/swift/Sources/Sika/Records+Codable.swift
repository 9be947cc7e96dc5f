// Idiom only: records and their enums as Swift's Codable, in the core's JSON shape (ADR 0019).
// Every record is encoded from the core's own `toJson()` and decoded by the core's own
// `*FromJson` reader, so Swift writes and reads what Python and Kotlin do: the service's field
// names, statuses as the service's text, amounts as exact decimal strings ("100.10"),
// timestamps as ISO 8601 UTC with milliseconds.
import Foundation

/// A record the core writes as JSON (`toJson()`): `Encodable` through that text.
public protocol CoreJSONEncodable: Encodable {
    /// The record as the core's JSON text; throws `InvalidInput` for a value the core cannot
    /// hold (an amount beyond 28 significant digits), never a crash (B63).
    func toJson() throws -> String
}

extension CoreJSONEncodable {
    /// Writes the core's JSON through any `Encoder`: as a nested value inside a merchant's own
    /// `Codable` type, with the encoder's own formatting. Objects are written in the core's key
    /// order (B114): an encoder that keeps the order of encoded keys writes `toJson()`'s bytes;
    /// Foundation's `JSONEncoder` writes the same members in an order of its own (and `/` as
    /// `\/` unless `.withoutEscapingSlashes`).
    public func encode(to encoder: any Encoder) throws {
        let text = try toJson()
        let value = try JSONValue.parse(text) ?? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        try value.encode(to: encoder)
    }
}

/// A record the core also reads back from that JSON (`*FromJson`): `Codable` both ways, and
/// `decode(encode(record)) == record`.
public protocol CoreJSONCodable: CoreJSONEncodable, Decodable {
    /// The core's reader of the record's `toJson()` text; other text throws `InvalidInput`.
    static func fromJson(_ json: String) throws -> Self
}

extension CoreJSONCodable {
    /// Reads the value at the decoder's position back into JSON text and hands it to the core's
    /// reader. Text that is not the record's JSON is a `DecodingError.dataCorrupted` whose
    /// underlying error is the core's `SikaError.InvalidInput` (field `json`).
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        do {
            self = try Self.fromJson(json)
        } catch {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error))
        }
    }
}

// Which records are `CoreJSONCodable`, and which enums `ServiceTextCodable`, is generated from
// the library's metadata into `Sika+Codable.swift` next to `Sika.swift` (ADR 0035): every record
// with a `*_from_json` reader in the core, every enum with a `*_from_text` parser.

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
