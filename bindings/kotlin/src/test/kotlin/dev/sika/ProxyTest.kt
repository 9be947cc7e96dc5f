package dev.sika

import java.io.File
import java.net.ServerSocket
import java.util.Collections
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** B47: no proxy for loopback, environment proxies ignored, an explicit `proxy` checked (ADR 0021). */
class ProxyTest {
    private val sandbox = Sandbox()
    private val proxy = ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())

    /** First request lines the fake proxy received; it answers each with a forged "successful". */
    private val seen: MutableList<String> = Collections.synchronizedList(mutableListOf())
    private val proxyUrl = "http://127.0.0.1:${proxy.localPort}"

    init {
        thread(isDaemon = true) {
            while (true) {
                val socket = runCatching { proxy.accept() }.getOrNull() ?: return@thread
                socket.use {
                    seen.add(it.getInputStream().bufferedReader(Charsets.ISO_8859_1).readLine().orEmpty())
                    val forged = """{"status":"success","data":{"status":"successful"}}"""
                    it.getOutputStream().write(
                        ("HTTP/1.1 200 OK\r\nContent-Length: ${forged.length}\r\nConnection: close\r\n\r\n$forged").toByteArray(),
                    )
                }
            }
        }
    }

    @AfterEach
    fun stop() {
        proxy.close()
        sandbox.close()
    }

    /** faults.json's `environment_proxies`: the variables that must be ignored. */
    private val environment = scenario("environment_proxies")

    private fun names(field: String) = environment[field]!!.jsonArray.map { it.jsonPrimitive.content }

    /**
     * Runs [ProxyChild] with [variables] set to the proxy (and the scenario's cleared ones
     * removed): the environment of a process is fixed on the JVM. Returns its output.
     */
    private fun runChild(variables: List<String>, vararg args: String): String {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val child = ProcessBuilder(listOf(java, "-cp", System.getProperty("java.class.path"), ProxyChild::class.java.name) + args)
            .redirectErrorStream(true)
        child.environment().apply {
            for (name in names("cleared_variables")) remove(name)
            for (name in variables) put(name, proxyUrl)
        }
        val process = child.start()
        val output = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS))
        assertEquals(0, process.exitValue(), output)
        return output
    }

    @Test
    fun testB47EnvironmentProxiesAreNotUsedForLoopback() {
        sandbox.seedTransaction(transactionObject("B47-KT", "successful", "5"))
        val sets = environment["loopback_variable_sets"]!!.jsonArray.map { set -> set.jsonArray.map { it.jsonPrimitive.content } }
        assertTrue(sets.isNotEmpty())
        for (variables in sets) {
            val output = runChild(variables, "loopback", sandbox.url)
            assertTrue(output.contains("verified B47-KT"), "$variables: $output")
            assertEquals(emptyList<String>(), seen.toList(), "$variables: the proxy saw the loopback call and its key")
        }
        assertEquals(sets.size, sandbox.requests().size)
    }

    @Test
    fun testB47HttpsProxyEnvironmentIsIgnoredForHttpsTargets() {
        val output = runChild(names("https_variables"), "https", "https://sika-proxy-test.invalid")
        assertTrue(output.contains("network error"), output)
        assertEquals(emptyList<String>(), seen.toList(), "an environment proxy was used without the merchant's setting")
    }

    @Test
    fun testB47ABadProxyIsInvalidInputAndNothingIsSent() {
        for (bad in listOf("not a url", "ftp://127.0.0.1:21", "http://127.0.0.1:1/?x=1")) {
            val error = assertThrows(SikaException.InvalidInput::class.java) {
                BlockingClient(ClientConfig(SecretKey(KEY), sandbox.url, proxy = SecretUrl(bad))).close()
            }
            assertEquals("proxy", error.field, bad)
        }
        assertEquals(0, sandbox.requests().size)
    }

    @Test
    fun testB47AnExplicitProxyIsNotUsedForLoopback() {
        sandbox.seedTransaction(transactionObject("B47-KT-EXPLICIT", "successful", "5"))
        BlockingClient(ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = 10_000, proxy = SecretUrl(proxyUrl))).use {
            assertEquals("B47-KT-EXPLICIT", it.verifyTransaction("B47-KT-EXPLICIT").txRef)
        }
        assertEquals(emptyList<String>(), seen.toList())
    }

    /** B81: the proxy is a `SecretUrl` object; no printed or serialised form shows its password. */
    @Test
    fun testB81TheProxyPasswordIsInNoPrintedForm() {
        val password = "pa55word_canary_B81"
        val config = ClientConfig(SecretKey(KEY), "https://api.example.com", proxy = SecretUrl("http://merchant:$password@proxy.internal:3128"))
        // Jackson may refuse an object with no properties: its refusal is a printed form too.
        val jackson = runCatching { com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(config) }
            .getOrElse { it.toString() }
        val forms = listOf(config.toString(), config.proxy.toString(), "$config", jackson, config.copy().toString())
        for (form in forms) {
            assertFalse(form.contains(password) || form.contains("merchant:"), form)
        }
        // The object still carries the URL: a client made with it checks it, printing nothing of it.
        val error = assertThrows(SikaException.InvalidInput::class.java) {
            BlockingClient(ClientConfig(SecretKey(KEY), "https://api.example.com", proxy = SecretUrl("ftp://u:$password@x:1"))).close()
        }
        assertEquals("proxy", error.field)
        assertFalse(error.toString().contains(password), error.toString())
    }

    /**
     * B81: a `baseUrl` with credentials (refused when a client is made) prints them as
     * `[REDACTED]`: the data class's `toString()` is the core's printing, not every field whole.
     */
    @Test
    fun testB81ABaseUrlWithCredentialsPrintsNoneOfThem() {
        val password = "pa55word_canary_B81"
        val config = ClientConfig(SecretKey(KEY), "https://merchant:$password@api.example.com/v1", timeoutMs = 5_000)
        for (form in listOf(config.toString(), "$config", config.copy().toString())) {
            assertFalse(form.contains(password) || form.contains("merchant:"), form)
            assertTrue(form.contains("https://[REDACTED]@api.example.com/v1"), form)
            assertTrue(form.contains("5000"), "the rest of the config is shown: $form")
        }
        val error = assertThrows(SikaException.Configuration::class.java) { BlockingClient(config).close() }
        assertFalse(error.toString().contains(password), error.toString())
    }
}

/**
 * The child JVM of [ProxyTest]: `loopback URL` verifies B47-KT at the sandbox; `https URL`
 * verifies at an https address that never resolves, which must end in a network error (no
 * proxy used, so no traffic at all).
 */
object ProxyChild {
    @JvmStatic
    fun main(args: Array<String>) {
        BlockingClient(ClientConfig(SecretKey(KEY), args[1], timeoutMs = 10_000, maxRetries = 0)).use {
            when (args[0]) {
                "loopback" -> println("verified " + it.verifyTransaction("B47-KT").txRef)
                else -> try {
                    it.verifyTransaction("B47-HTTPS")
                    println("answered: the call went through a proxy")
                } catch (error: SikaException.Network) {
                    println("network error")
                }
            }
        }
    }
}
