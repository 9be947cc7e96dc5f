package dev.sika.installed

import com.sun.jna.Platform
import dev.sika.Client
import dev.sika.normalizePhoneNumber
import java.io.File
import java.net.URI
import java.net.URLClassLoader
import java.security.MessageDigest
import java.util.Properties
import java.util.concurrent.TimeUnit
import java.util.jar.JarFile
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assumptions
import org.junit.jupiter.api.Test

/**
 * B56: dev.sika:sika as a merchant's Maven project gets it from the release files (dist/maven).
 * scripts/test-installed-maven starts the sandbox and passes SIKA_BASE_URL and SIKA_SECRET_KEY.
 */
class InstalledJarTest {
    private val version = System.getProperty("sika.version")
    private val repository = File(URI(System.getProperty("sika.repository")))

    /** The jar on the classpath: the one Maven resolved for dev.sika:sika. */
    private val sikaJar = File(Client::class.java.protectionDomain.codeSource.location.toURI())

    private val runtimeClasspath =
        File(System.getProperty("sika.runtime.classpath")).readText().trim().split(File.pathSeparator)

    @Test
    fun b56TheKotlinExampleRunsAgainstTheSandbox() {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val classpath = (listOf(System.getProperty("sika.example.classpath")) + runtimeClasspath).joinToString(File.pathSeparator)
        // A JVM of its own: the example ends with exitProcess on an error. The environment
        // (SIKA_BASE_URL, SIKA_SECRET_KEY) is inherited.
        val process = ProcessBuilder(java, "-cp", classpath, "dev.sika.examples.MobileMoneyFlowKt")
            .redirectErrorStream(true)
            .start()
        val output = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the example did not end within 120 s")
        assertEquals(0, process.exitValue(), output)
        assertTrue("confirmed: 25.50 GHS paid in full" in output, output)
        assertTrue("ship the order" in output, output)
    }

    /** The same bytes as the release file: resolved from dist/maven, not from another copy. */
    @Test
    fun b56TheJarIsTheReleasedOne() {
        assertEquals("sika-$version.jar", sikaJar.name)
        val released = File(repository, "dev/sika/sika/$version/sika-$version.jar.sha1").readText().trim()
        assertEquals(released, sha1(sikaJar))
        JarFile(sikaJar).use { jar ->
            val properties = Properties()
            jar.getInputStream(jar.getJarEntry("META-INF/maven/dev.sika/sika/pom.properties")).use(properties::load)
            assertEquals(version, properties.getProperty("version"))
            for (entry in listOf("META-INF/LICENSE-MIT", "META-INF/LICENSE-APACHE")) {
                assertNotNull(jar.getJarEntry(entry), "the jar lacks $entry")
            }
        }
    }

    /** JNA loads the library from the jar (this platform's directory), with no library path given. */
    @Test
    fun b56TheNativeLibraryLoadsFromTheJar() {
        assertEquals(null, System.getProperty("jna.library.path"))
        val path = "${Platform.RESOURCE_PREFIX}/${System.mapLibraryName("sika_ffi")}"
        val resource = Client::class.java.classLoader.getResource(path)
        assertNotNull(resource, "no $path in the jar")
        assertTrue(resource.toString().startsWith("jar:${sikaJar.toURI()}!"), "found in $resource")
        assertEquals("+233244120000", normalizePhoneNumber("024 412 0000", "GH"))
    }

    /** Only the compile dependencies reach a merchant: the optional ones (Jackson,
     *  kotlinx.serialization, ADR 0017) and the SDK's test dependencies stay behind. */
    @Test
    fun b56OnlyTheRequiredDependenciesComeWithTheJar() {
        val artifacts = runtimeClasspath.map { File(it).name.substringBeforeLast('-') }.sorted()
        assertEquals(
            listOf("annotations", "jna", "kotlin-stdlib", "kotlinx-coroutines-core-jvm", "sika", "slf4j-api"),
            artifacts,
            "runtime classpath: $runtimeClasspath",
        )
        // Looked up on the runtime classpath alone: the test classpath also holds the test
        // kit's dependencies (dev.sika:sika-testing brings Jackson), which a merchant's
        // application does not get.
        val runtime = URLClassLoader(
            runtimeClasspath.map { File(it).toURI().toURL() }.toTypedArray(),
            ClassLoader.getPlatformClassLoader(),
        )
        runtime.use { loader ->
            assertNotNull(Class.forName("dev.sika.Client", false, loader))
            for (absent in listOf(
                "com.fasterxml.jackson.databind.ObjectMapper",
                "kotlinx.serialization.json.Json",
                "ch.qos.logback.classic.Logger",
            )) {
                assertThrows(ClassNotFoundException::class.java) { Class.forName(absent, false, loader) }
            }
        }
    }

    /** B111: under the spring-boot-3.5 profile, the example above ran on the Kotlin standard
     *  library and coroutines that Spring Boot 3.5 selects, compiled by that Kotlin. */
    @Test
    fun b111TheVersionsSpringBootSelectsAreTheOnesUsed() {
        val kotlin = System.getProperty("sika.expected.kotlin").orEmpty()
        val coroutines = System.getProperty("sika.expected.coroutines").orEmpty()
        Assumptions.assumeTrue(kotlin.isNotEmpty(), "run without the spring-boot-3.5 profile")
        val jars = runtimeClasspath.map { File(it).name }
        assertTrue("kotlin-stdlib-$kotlin.jar" in jars, "runtime classpath: $jars")
        assertTrue("kotlinx-coroutines-core-jvm-$coroutines.jar" in jars, "runtime classpath: $jars")
        assertEquals(kotlin, KotlinVersion.CURRENT.toString())
    }

    private fun sha1(file: File): String =
        MessageDigest.getInstance("SHA-1").digest(file.readBytes()).joinToString("") { "%02x".format(it) }
}
