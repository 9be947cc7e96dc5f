package dev.sika.examples.ktor

import java.io.File
import java.net.ServerSocket
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/**
 * A throwaway PostgreSQL cluster for one test class, as core/tests/ledger/cluster.rs and
 * bindings/python/tests/pg_cluster.py start it: `initdb` and `pg_ctl` from the newest
 * /usr/lib/postgresql/N/bin (or `SIKA_PG_BIN`, or PATH), in a temporary directory, on a free
 * loopback port, with a password (SCRAM), run as the unprivileged user `sika-pg` (`SIKA_PG_USER`)
 * that scripts/setup creates when the tests run as root (PostgreSQL refuses root). [close] stops
 * it and removes the directory. A cluster that cannot start fails the test with the reason:
 * nothing is skipped.
 */
class PgCluster : AutoCloseable {
    private val bin: File = binaries()
    private val user: String? = if (System.getProperty("user.name") == "root") System.getenv("SIKA_PG_USER") ?: "sika-pg" else null
    private val dir: File = Files.createTempDirectory("sika-pg-kt-").toFile()
    private val data = File(dir, "data")
    val port: Int

    init {
        val passwordFile = File(dir, "password").apply { writeText(PASSWORD) }
        if (user != null) {
            // The cluster's files belong to the user that runs it.
            check(exec(listOf("chown", "$user:", dir.path, passwordFile.path)).first == 0) { "user `$user` does not exist: run scripts/setup" }
        }
        run(
            "initdb", "-D", data.path, "-U", "sika", "--pwfile", passwordFile.path, "-A", "scram-sha-256",
            "-E", "UTF8", "--locale", "C", "--no-sync", "--no-instructions",
        )
        port = ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()).use { it.localPort }
        val options = "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir.path} -c fsync=off -c max_connections=200"
        run("pg_ctl", "-D", data.path, "-l", File(dir, "log").path, "-w", "-t", "60", "-o", options, "start")
    }

    /** The superuser's URL (its password is the canary the SDK must never print). */
    val url: String get() = "postgresql://sika:$PASSWORD@127.0.0.1:$port/postgres"

    private fun run(program: String, vararg args: String) {
        val command = listOf(File(bin, program).path) + args
        val (status, output) = exec(if (user != null) listOf(RUNUSER, "-u", user, "--") + command else command)
        if (status != 0) {
            val log = File(dir, "log").takeIf { it.exists() }?.readText().orEmpty()
            throw AssertionError("PostgreSQL's $program failed: $output\nserver log:\n$log")
        }
    }

    private fun exec(command: List<String>): Pair<Int, String> {
        val process = ProcessBuilder(command).directory(dir).redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        check(process.waitFor(120, TimeUnit.SECONDS)) { "$command did not end" }
        return process.exitValue() to output
    }

    /** Stops every process of the cluster (SIGSTOP): connections stay open, nothing answers (B217). */
    fun freeze() = signalAll("STOP")

    /** Lets a frozen cluster go on (SIGCONT). */
    fun thaw() = signalAll("CONT")

    private fun signalAll(signal: String) {
        val postmaster = File(data, "postmaster.pid").readLines().first().trim().toLong()
        // The backends first, then the postmaster (which would start no new one while stopped).
        // The JDK sends no SIGSTOP, and procps's kill is not on every machine: bash's own kill.
        val pids = ProcessHandle.of(postmaster).orElseThrow().children().map { it.pid() }.toList() + postmaster
        val (status, output) = exec(listOf("bash", "-c", "kill -$signal ${pids.joinToString(" ")}"))
        check(status == 0) { "kill -$signal: $output" }
    }

    /**
     * Runs [block] while another session (`psql`) holds [reference]'s row of [table] locked
     * (`SELECT ... FOR UPDATE` in an open transaction), B217.
     */
    fun <T> rowLocked(table: String, reference: String, block: () -> T): T {
        val session = ProcessBuilder(File(bin, "psql").path, "-X", "-q", "-v", "ON_ERROR_STOP=1", url)
            .redirectErrorStream(true).start()
        val input = session.outputStream.bufferedWriter()
        val output = session.inputStream.bufferedReader()
        try {
            input.write("BEGIN;\nSELECT 1 FROM $table WHERE reference = '$reference' FOR UPDATE;\n\\echo LOCKED\n")
            input.flush()
            val seen = generateSequence { output.readLine() }.takeWhile { it.trim() != "LOCKED" }.toList()
            check(session.isAlive) { "psql did not lock the row: $seen" }
            return block()
        } finally {
            input.write("ROLLBACK;\n\\q\n")
            input.close()
            check(session.waitFor(30, TimeUnit.SECONDS)) { "psql did not end" }
        }
    }

    override fun close() {
        try {
            run("pg_ctl", "-D", data.path, "-m", "immediate", "-w", "stop")
        } finally {
            dir.deleteRecursively()
        }
    }

    companion object {
        const val PASSWORD = "pg_canary_pw_7f3a"

        /** In sbin, which a test's PATH may lack. */
        private val RUNUSER = listOf("/usr/sbin/runuser", "/sbin/runuser").firstOrNull { File(it).canExecute() } ?: "runuser"

        private fun binaries(): File {
            System.getenv("SIKA_PG_BIN")?.let { return File(it) }
            val newest = File("/usr/lib/postgresql").listFiles().orEmpty()
                .filter { it.name.all(Char::isDigit) && File(it, "bin/initdb").exists() }
                .maxByOrNull { it.name.toInt() }
            if (newest != null) return File(newest, "bin")
            val onPath = System.getenv("PATH").orEmpty().split(File.pathSeparator).map { File(it, "initdb") }.firstOrNull { it.canExecute() }
                ?: throw AssertionError("PostgreSQL is not installed (no initdb): run scripts/setup")
            return onPath.parentFile
        }
    }
}
