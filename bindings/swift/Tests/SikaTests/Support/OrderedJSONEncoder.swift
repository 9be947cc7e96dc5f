// A test's encoder that keeps the order in which keys are encoded (B114): compact JSON, strings
// escaped as serde_json escapes them (`"`, `\`, control characters; `/` and non-ASCII as they
// are). Foundation's `JSONEncoder` keeps a keyed container's values in a `Dictionary`, so only
// an encoder like this one shows the order in which a `Codable` value writes its keys.
import Foundation

enum OrderedJSONEncoder {
    static func encode(_ value: some Encodable) throws -> String {
        let node = Node()
        try value.encode(to: NodeEncoder(node: node, codingPath: []))
        var out = ""
        node.write(to: &out)
        return out
    }
}

private final class Node {
    var scalar: String?
    var items: [Node]?
    var members: [(String, Node)]?

    func write(to out: inout String) {
        if let scalar {
            out += scalar
        } else if let items {
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        } else if let members {
            out += "{"
            for (index, (key, item)) in members.enumerated() {
                if index > 0 { out += "," }
                out += quoted(key) + ":"
                item.write(to: &out)
            }
            out += "}"
        } else {
            out += "null"
        }
    }
}

private func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [] }
        return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.items == nil { node.items = [] }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(node: node, codingPath: codingPath)
    }
}

private struct Single: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.scalar = "null" }
    mutating func encode(_ value: Bool) throws { node.scalar = value ? "true" : "false" }
    mutating func encode(_ value: String) throws { node.scalar = quoted(value) }
    mutating func encode(_ value: Double) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: Float) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: Int) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: Int8) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: Int16) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: Int32) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: Int64) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: UInt) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: UInt8) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: UInt16) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: UInt32) throws { node.scalar = "\(value)" }
    mutating func encode(_ value: UInt64) throws { node.scalar = "\(value)" }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> Node {
        let child = Node()
        node.members?.append((key.stringValue, child))
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).scalar = "null" }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: NodeEncoder(node: child(key), codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(Box(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(Box(value), forKey: key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: child(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: child(Key(stringValue: "super")!), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: child(key), codingPath: codingPath + [key])
    }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.items?.count ?? 0 }

    private func child() -> Node {
        let child = Node()
        node.items?.append(child)
        return child
    }

    mutating func encodeNil() throws { child().scalar = "null" }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: NodeEncoder(node: child(), codingPath: codingPath))
    }
    mutating func encode(_ value: Bool) throws { try encode(Box(value)) }
    mutating func encode(_ value: String) throws { try encode(Box(value)) }
    mutating func encode(_ value: Double) throws { try encode(Box(value)) }
    mutating func encode(_ value: Float) throws { try encode(Box(value)) }
    mutating func encode(_ value: Int) throws { try encode(Box(value)) }
    mutating func encode(_ value: Int8) throws { try encode(Box(value)) }
    mutating func encode(_ value: Int16) throws { try encode(Box(value)) }
    mutating func encode(_ value: Int32) throws { try encode(Box(value)) }
    mutating func encode(_ value: Int64) throws { try encode(Box(value)) }
    mutating func encode(_ value: UInt) throws { try encode(Box(value)) }
    mutating func encode(_ value: UInt8) throws { try encode(Box(value)) }
    mutating func encode(_ value: UInt16) throws { try encode(Box(value)) }
    mutating func encode(_ value: UInt32) throws { try encode(Box(value)) }
    mutating func encode(_ value: UInt64) throws { try encode(Box(value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: child(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: child(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: child(), codingPath: codingPath)
    }
}

/// A primitive written through its own single-value container (so the generic path is used).
private struct Box<Value: Encodable>: Encodable {
    let value: Value
    init(_ value: Value) { self.value = value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
