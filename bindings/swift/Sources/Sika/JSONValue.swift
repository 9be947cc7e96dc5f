// Any JSON value, to carry the core's JSON text through Swift's Encoder and Decoder unchanged.
// It interprets nothing: the core wrote the text (and reads it back). An object keeps its
// members in the order of the text (B114, ADR 0047): it is written through a keyed container
// in the core's key order, so an encoder that keeps the order in which keys are encoded writes
// the core's bytes. (Foundation's `JSONEncoder` keeps keyed values in a `Dictionary`: it writes
// the same members in its own order.)
import Foundation

enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    // Integers stay integers (ids beyond 2^53 would lose digits as a Double).
    case integer(Int64)
    case unsignedInteger(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// The members in the order the text has them (the core's order for the core's text).
    case object([Member])

    struct Member: Equatable {
        let key: String
        let value: JSONValue
    }

    /// Any member name, as a coding key.
    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsignedInteger(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            // The decoder's order of keys (its `allKeys`); the core reads members by name.
            let object = try decoder.container(keyedBy: Key.self)
            self = .object(try object.allKeys.map { key in
                Member(key: key.stringValue, value: try object.decode(JSONValue.self, forKey: key))
            })
        }
    }

    /// Reads JSON text keeping each object's members in the text's order (Foundation's
    /// `JSONDecoder` gives an object's keys in an order of its own). For the core's own text:
    /// anything else is `nil`.
    static func parse(_ text: String) -> JSONValue? {
        var parser = Parser(bytes: Array(text.utf8))
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.index == parser.bytes.count ? value : nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
            let word = Array(word.utf8)
            guard bytes.count - index >= word.count, Array(bytes[index..<index + word.count]) == word else {
                return nil
            }
            index += word.count
            return value
        }

        mutating func value() -> JSONValue? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "n"): return literal("null", .null)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                if take(UInt8(ascii: "]")) { return .array(items) }
                repeat {
                    guard let item = value() else { return nil }
                    items.append(item)
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "]")) ? .array(items) : nil
            case UInt8(ascii: "{"):
                index += 1
                var members: [Member] = []
                if take(UInt8(ascii: "}")) { return .object(members) }
                repeat {
                    skipSpace()
                    guard let key = string(), take(UInt8(ascii: ":")), let item = value() else { return nil }
                    members.append(Member(key: key, value: item))
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "}")) ? .object(members) : nil
            default: return number()
            }
        }

        mutating func number() -> JSONValue? {
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if let value = Int64(text) { return .integer(value) }
            if let value = UInt64(text) { return .unsignedInteger(value) }
            return Double(text).map(JSONValue.number)
        }

        /// A string at `index` (its opening quote), unescaped.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var units: [UInt16] = []
            var raw: [UInt8] = []
            func flush() {
                units.append(contentsOf: String(decoding: raw, as: UTF8.self).utf16)
                raw.removeAll()
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(decoding: units, as: UTF16.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    flush()
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): units.append(UInt16(escape))
                    case UInt8(ascii: "b"): units.append(0x08)
                    case UInt8(ascii: "f"): units.append(0x0C)
                    case UInt8(ascii: "n"): units.append(0x0A)
                    case UInt8(ascii: "r"): units.append(0x0D)
                    case UInt8(ascii: "t"): units.append(0x09)
                    case UInt8(ascii: "u"):
                        guard bytes.count - index >= 4,
                              let unit = UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                        else { return nil }
                        index += 4
                        units.append(unit)
                    default: return nil
                    }
                default: raw.append(byte)
                }
            }
            return nil
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for member in members {
                try container.encode(member.value, forKey: Key(stringValue: member.key))
            }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .unsignedInteger(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object: break
            }
        }
    }
}
