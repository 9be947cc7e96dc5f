package dev.sika

/**
 * How many class loaders in this JVM have loaded Sika's native library (issue 26 item 5).
 *
 * Each class loader that loads the jar loads its own copy of `libsika_ffi`, with its own runtime
 * threads, and a copy stays until the process exits (README, "Redeploys and classloaders"). A
 * redeploy that loads the jar afresh (a DevTools restart with the jar in the restart loader, an
 * application server's redeploy of `WEB-INF/lib`) adds one each time. This counts them so that
 * the second and later loads can say so in the application's log ([Slf4jLogging.install]).
 *
 * The count lives in the JVM's system properties: the one map that every class loader shares,
 * and whose `compute` is atomic.
 */
internal object ClassLoaderCount {
    const val PROPERTY = "dev.sika.classLoaders"

    /** Counts this class loader's load (called once per loader, as the library loads); the total. */
    fun countThisLoad(): Int = try {
        val total = System.getProperties().compute(PROPERTY) { _, before ->
            (((before as? String)?.toIntOrNull() ?: 0) + 1).toString()
        }
        (total as String).toInt()
    } catch (_: RuntimeException) {
        1 // A security policy refusing the property: nothing to compare with.
    }

    /** The warning the [total]th load logs (from the second on). */
    fun warning(total: Int): String =
        "Sika has been loaded by $total class loaders in this JVM. Each keeps its own copy of the " +
            "native library (libsika_ffi) and its threads until the process exits, so every " +
            "redeploy that loads the Sika jar afresh adds one. Put the Sika jar (and JNA) in a " +
            "class loader that lives as long as the process: see \"Redeploys and classloaders\" " +
            "in Sika's Kotlin README."
}
