package dev.sika

import java.io.File
import kotlin.reflect.full.primaryConstructor
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/**
 * B295: one sample of every error kind, from tests/fixtures/errors.json (ADR 0084), with no list
 * of kinds here: the kinds are the generated sealed class's, and a kind without a sample fails.
 */
class ErrorKindsTest {
    private val samples = Json.parseToJsonElement(File(FIXTURES, "errors.json").readText())
        .jsonObject.getValue("kinds").jsonArray.map { it.jsonObject }

    /** The sample's exception, its fields given by position (Kotlin renames Api's `message`). */
    private fun build(sample: JsonObject): SikaException {
        val kind = sample.getValue("kind").jsonPrimitive.content
        val type = SikaException::class.sealedSubclasses.single { it.simpleName == kind }
        val constructor = type.primaryConstructor ?: error("$kind has no constructor")
        val fields = (sample["fields"] as JsonObject?)?.values?.toList() ?: emptyList()
        assertEquals(constructor.parameters.size, fields.size, "$kind: the core's fields")
        val arguments = constructor.parameters.zip(fields).map { (parameter, value) ->
            when {
                value is JsonNull -> null
                parameter.type.classifier == Int::class -> value.jsonPrimitive.long.toInt()
                parameter.type.classifier == Long::class -> value.jsonPrimitive.long
                else -> (value as JsonPrimitive).contentOrNull
            }
        }
        return constructor.call(*arguments.toTypedArray())
    }

    @Test
    fun testB295EveryKindHasOneSampleThatReadsAsItsText() {
        val kinds = SikaException::class.sealedSubclasses.map { it.simpleName }.toSet()
        assertEquals(kinds, samples.map { it.getValue("kind").jsonPrimitive.content }.toSet(), "errors.json: one sample per kind")
        for (sample in samples) {
            val error = build(sample)
            val text = sample.getValue("text").jsonPrimitive.content
            assertEquals(text, error.message(), "the core's text")
            assertEquals(text, error.message)
            val requestId = (sample["fields"] as JsonObject?)?.get("request_id")?.jsonPrimitive?.contentOrNull
            assertEquals(requestId, error.requestId, "${error::class.simpleName}: the id it quotes")
        }
    }
}
