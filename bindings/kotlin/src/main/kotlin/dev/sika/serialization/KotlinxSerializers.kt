package dev.sika.serialization

import dev.sika.SikaException
import kotlinx.serialization.KSerializer
import kotlinx.serialization.SerializationException
import kotlinx.serialization.descriptors.PrimitiveKind
import kotlinx.serialization.descriptors.PrimitiveSerialDescriptor
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.buildClassSerialDescriptor
import kotlinx.serialization.encoding.Decoder
import kotlinx.serialization.encoding.Encoder
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonDecoder
import kotlinx.serialization.json.JsonEncoder

// kotlinx.serialization for the records and text enums (ADR 0069). The bindgen writes one public
// object extending these per type (`SikaSerializers.kt`, `TransactionSerializer`, ...) and the
// module that holds them; the JSON itself is the core's. No generated class names kotlinx, so a
// Java project without it compiles warning-free.

/**
 * A record as the core's `toJson()` and read back by `<record>FromJson()`. JSON only: the core's
 * text is the record's one serialised form, so another format gets a clear error rather than a
 * second mapping of the fields.
 */
public abstract class RecordSerializer<T> internal constructor(
    private val serialName: String,
    private val toJson: (T) -> String,
    private val fromJson: (String) -> T,
) : KSerializer<T> {
    override val descriptor: SerialDescriptor = buildClassSerialDescriptor(serialName)

    override fun serialize(encoder: Encoder, value: T) {
        val json = encoder as? JsonEncoder ?: throw jsonOnly(encoder)
        json.encodeJsonElement(Json.parseToJsonElement(toJson(value)))
    }

    override fun deserialize(decoder: Decoder): T {
        val json = decoder as? JsonDecoder ?: throw jsonOnly(decoder)
        // A JsonElement's text keeps a number's digits as written and re-escapes strings.
        val text = json.decodeJsonElement().toString()
        return try {
            fromJson(text)
        } catch (error: SikaException) {
            throw SerializationException(error.message, error)
        }
    }

    private fun jsonOnly(format: Any) =
        SerializationException("$serialName is serialised as JSON (kotlinx.serialization.json), not by ${format::class.java.name}")
}

/** A status, payment type or bank scheme as the service's text, in any format. */
public abstract class TextSerializer<T : Any> internal constructor(serialName: String, private val fromText: (String) -> T) : KSerializer<T> {
    override val descriptor: SerialDescriptor = PrimitiveSerialDescriptor(serialName, PrimitiveKind.STRING)

    override fun serialize(encoder: Encoder, value: T) = encoder.encodeString(value.toString())

    override fun deserialize(decoder: Decoder): T = fromText(decoder.decodeString())
}
