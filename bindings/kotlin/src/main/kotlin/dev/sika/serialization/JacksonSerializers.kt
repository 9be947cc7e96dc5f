package dev.sika.serialization

import com.fasterxml.jackson.core.JsonFactory
import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.core.JsonToken
import com.fasterxml.jackson.databind.DeserializationContext
import com.fasterxml.jackson.databind.JsonMappingException
import com.fasterxml.jackson.databind.SerializerProvider
import com.fasterxml.jackson.databind.deser.std.StdDeserializer
import com.fasterxml.jackson.databind.jsontype.TypeSerializer
import com.fasterxml.jackson.databind.ser.std.StdSerializer
import dev.sika.SikaException
import java.io.StringWriter

// Jackson for the records and text enums (ADR 0017). The generated code names a subclass of
// these per type in `@JsonSerialize`/`@JsonDeserialize`; the JSON itself is the core's.

/** Parses the core's text and writes the records it holds: plain JSON, no ObjectMapper settings. */
private val coreJson = JsonFactory()

/** A record as the core's `toJson()`, token by token, so any generator (a tree, YAML) takes it. */
internal abstract class RecordJacksonSerializer<T : Any>(type: Class<T>, private val toJson: (T) -> String) :
    StdSerializer<T>(type) {
    override fun serialize(value: T, generator: JsonGenerator, provider: SerializerProvider) {
        coreJson.createParser(toJson(value)).use { parser ->
            parser.nextToken()
            generator.copyCurrentStructure(parser)
        }
    }

    /** With type ids (Spring's Redis cache, default typing): the id, then the core's fields. */
    override fun serializeWithType(value: T, generator: JsonGenerator, provider: SerializerProvider, types: TypeSerializer) {
        val typeId = types.writeTypePrefix(generator, types.typeId(value, JsonToken.START_OBJECT))
        coreJson.createParser(toJson(value)).use { parser ->
            parser.nextToken()
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                generator.copyCurrentStructure(parser)
            }
        }
        types.writeTypeSuffix(generator, typeId)
    }
}

/** A record read by the core's `<record>FromJson()`; its `SikaException` is the cause. */
internal abstract class RecordJacksonDeserializer<T : Any>(type: Class<T>, private val fromJson: (String) -> T) :
    StdDeserializer<T>(type) {
    override fun deserialize(parser: JsonParser, context: DeserializationContext): T {
        if (parser.currentToken() != JsonToken.START_OBJECT && parser.currentToken() != JsonToken.FIELD_NAME) {
            @Suppress("UNCHECKED_CAST")
            return context.handleUnexpectedToken(handledType(), parser) as T
        }
        val text = StringWriter()
        coreJson.createGenerator(text).use { generator ->
            if (parser.currentToken() == JsonToken.START_OBJECT) {
                generator.copyCurrentStructure(parser)
            } else {
                // Jackson has already read the `{` and a type id (a polymorphic value): the rest.
                generator.writeStartObject()
                while (parser.currentToken() == JsonToken.FIELD_NAME) {
                    generator.copyCurrentStructure(parser)
                    parser.nextToken()
                }
                generator.writeEndObject()
            }
        }
        return try {
            fromJson(text.toString())
        } catch (error: SikaException) {
            throw JsonMappingException.from(parser, error.message, error)
        }
    }
}

/** A status, payment type or bank scheme as the service's text (the core's `Display`). */
internal abstract class TextJacksonSerializer<T : Any>(type: Class<T>) : StdSerializer<T>(type) {
    override fun serialize(value: T, generator: JsonGenerator, provider: SerializerProvider) {
        generator.writeString(value.toString())
    }

    override fun serializeWithType(value: T, generator: JsonGenerator, provider: SerializerProvider, types: TypeSerializer) {
        val typeId = types.writeTypePrefix(generator, types.typeId(value, JsonToken.VALUE_STRING))
        serialize(value, generator, provider)
        types.writeTypeSuffix(generator, typeId)
    }
}

/** The service's text read by the decoder's own parser (`success` stays `Unknown`). */
internal abstract class TextJacksonDeserializer<T : Any>(type: Class<T>, private val fromText: (String) -> T) :
    StdDeserializer<T>(type) {
    override fun deserialize(parser: JsonParser, context: DeserializationContext): T {
        if (parser.currentToken() != JsonToken.VALUE_STRING) {
            @Suppress("UNCHECKED_CAST")
            return context.handleUnexpectedToken(handledType(), parser) as T
        }
        return fromText(parser.text)
    }
}
