package dev.sika.serialization

import com.fasterxml.jackson.core.JsonFactory
import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.core.JsonToken
import com.fasterxml.jackson.databind.BeanDescription
import com.fasterxml.jackson.databind.DeserializationConfig
import com.fasterxml.jackson.databind.DeserializationContext
import com.fasterxml.jackson.databind.JavaType
import com.fasterxml.jackson.databind.JsonDeserializer
import com.fasterxml.jackson.databind.JsonMappingException
import com.fasterxml.jackson.databind.JsonSerializer
import com.fasterxml.jackson.databind.Module
import com.fasterxml.jackson.databind.SerializationConfig
import com.fasterxml.jackson.databind.SerializerProvider
import com.fasterxml.jackson.databind.deser.Deserializers
import com.fasterxml.jackson.databind.deser.std.StdDeserializer
import com.fasterxml.jackson.databind.jsontype.TypeSerializer
import com.fasterxml.jackson.databind.ser.Serializers
import com.fasterxml.jackson.databind.ser.std.StdSerializer
import dev.sika.SikaException
import java.io.StringWriter

// Jackson for the records, decisions and text enums (ADR 0079). The bindgen writes the module
// that lists them (`SikaJacksonModule.kt`, from the library's metadata); the JSON itself is the
// core's. No generated class names Jackson, so a Java project without it compiles warning-free.

/** Parses the core's text and writes the records it holds: plain JSON, no ObjectMapper settings. */
private val coreJson = JsonFactory()

/** One SDK type as Jackson writes and reads it: the type and its subclasses (a sealed class's variants). */
internal class JacksonType<T : Any>(
    val type: Class<T>,
    val serializer: StdSerializer<T>,
    val deserializer: (requested: Class<*>) -> JsonDeserializer<*>,
)

/** A record or decision as the core's JSON: `toJson()`, read back by its `*FromJson` reader. */
internal fun <T : Any> coreJson(type: Class<T>, toJson: (T) -> String, fromJson: (String) -> T): JacksonType<T> =
    JacksonType(type, RecordJacksonSerializer(type, toJson)) { requested -> RecordJacksonDeserializer(requested, fromJson) }

/** A status, payment type or bank scheme as the service's text, read back by its parser. */
internal fun <T : Any> serviceText(type: Class<T>, fromText: (String) -> T): JacksonType<T> =
    JacksonType(type, TextJacksonSerializer(type)) { requested -> TextJacksonDeserializer(requested, fromText) }

/**
 * Registers [types] in a mapper. Jackson's `SimpleModule` finds a deserializer by exact class only;
 * these are found for a subclass too, as a default typing's type id names it
 * (`dev.sika.PaymentCheck$NotPaid`, `dev.sika.TransactionStatus$Successful`).
 */
internal fun setUpSikaTypes(context: Module.SetupContext, types: List<JacksonType<*>>) {
    fun find(raw: Class<*>): JacksonType<*>? = types.firstOrNull { it.type.isAssignableFrom(raw) }
    context.addSerializers(object : Serializers.Base() {
        override fun findSerializer(config: SerializationConfig, type: JavaType, beanDesc: BeanDescription): JsonSerializer<*>? =
            find(type.rawClass)?.serializer
    })
    context.addDeserializers(object : Deserializers.Base() {
        override fun findBeanDeserializer(type: JavaType, config: DeserializationConfig, beanDesc: BeanDescription): JsonDeserializer<*>? =
            find(type.rawClass)?.deserializer?.invoke(type.rawClass)

        override fun hasDeserializerFor(config: DeserializationConfig, valueType: Class<*>): Boolean = find(valueType) != null
    })
}

/** [value] as the [requested] class, or the library's exception naming both (a type id that lies). */
private fun <T> expect(requested: Class<*>, value: T, context: DeserializationContext): T {
    if (!requested.isInstance(value)) {
        @Suppress("UNCHECKED_CAST")
        return context.reportInputMismatch<Any>(requested, "read a %s, not a %s", value!!::class.java.name, requested.name) as T
    }
    return value
}

/** A record as the core's `toJson()`, token by token, so any generator (a tree, YAML) takes it. */
internal class RecordJacksonSerializer<T : Any>(type: Class<T>, private val toJson: (T) -> String) : StdSerializer<T>(type) {
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
internal class RecordJacksonDeserializer<T : Any>(private val requested: Class<*>, private val fromJson: (String) -> T) :
    StdDeserializer<T>(requested) {
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
        val value = try {
            fromJson(text.toString())
        } catch (error: SikaException) {
            throw JsonMappingException.from(parser, error.message, error)
        }
        return expect(requested, value, context)
    }
}

/** A status, payment type or bank scheme as the service's text (the core's `Display`). */
internal class TextJacksonSerializer<T : Any>(type: Class<T>) : StdSerializer<T>(type) {
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
internal class TextJacksonDeserializer<T : Any>(private val requested: Class<*>, private val fromText: (String) -> T) :
    StdDeserializer<T>(requested) {
    override fun deserialize(parser: JsonParser, context: DeserializationContext): T {
        if (parser.currentToken() != JsonToken.VALUE_STRING) {
            @Suppress("UNCHECKED_CAST")
            return context.handleUnexpectedToken(handledType(), parser) as T
        }
        return expect(requested, fromText(parser.text), context)
    }
}
