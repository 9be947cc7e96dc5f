package dev.sika.testing;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sika.BlockingClient;
import dev.sika.Client;
import dev.sika.ClientConfig;
import dev.sika.SecretKey;
import dev.sika.SikaException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A running Sika sandbox (the shipped {@code sika-sandbox}) for a merchant's integration tests: its
 * base URL and key, ready clients, and its control API (seeding, faults, webhook deliveries, reset).
 *
 * <p>{@link #start()} runs the binary of the system property {@code sika.sandbox.bin}, else of the
 * environment variable {@code SIKA_SANDBOX_BIN}, else {@code sika-sandbox} on {@code PATH}, on a
 * free loopback port with a fresh random key passed in its environment (never its command line).
 * {@link SikaSandboxExtension} gives one to JUnit 5 tests (one per run, or one per test under
 * parallel execution). Each control method sends the request
 * that {@code sandbox_control.json} (the repository's {@code tests/fixtures}) describes and throws
 * {@link SandboxException} when the sandbox answers anything but that operation's success.
 */
public final class SikaSandbox implements AutoCloseable {
    /**
     * The resource lock of the run's shared sandbox, for JUnit's parallel execution: tests that
     * declare {@code @ResourceLock(SikaSandbox.SHARED)} run one at a time and are given that
     * sandbox by {@link SikaSandboxExtension}; the others each get one of their own.
     */
    public static final String SHARED = "dev.sika.testing.SikaSandbox.shared";

    /** How long the simulated customer takes to answer a charge, unless changed. */
    public static final long DEFAULT_CONFIRM_AFTER_MS = 200;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode OPERATIONS = readOperations();

    private final Process process;
    private final String baseUrl;
    private final String secretKey;
    private final HttpClient http =
            HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).connectTimeout(Duration.ofSeconds(10)).build();

    private SikaSandbox(Process process, String baseUrl, String secretKey) {
        this.process = process;
        this.baseUrl = baseUrl;
        this.secretKey = secretKey;
    }

    /**
     * Starts a sandbox; {@link #close()} stops it.
     *
     * @return the running sandbox
     * @throws SandboxException when there is no binary or it does not start
     */
    public static SikaSandbox start() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String key = "sk_test_" + HexFormat.of().formatHex(random);
        ProcessBuilder builder = new ProcessBuilder(binary(), "--port", "0", "--exit-on-stdin-eof",
                "--confirm-after-ms", Long.toString(DEFAULT_CONFIRM_AFTER_MS));
        builder.environment().put("SIKA_SANDBOX_SECRET_KEY", key);
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new SandboxException("could not start " + builder.command().get(0) + ": " + e.getMessage(), e);
        }
        String first;
        try {
            BufferedReader reader =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            first = reader.readLine();
        } catch (IOException e) {
            first = null;
        }
        String prefix = "listening on ";
        if (first == null || !first.startsWith(prefix)) {
            process.destroyForcibly();
            throw new SandboxException("the sandbox did not start: " + first);
        }
        return new SikaSandbox(process, first.substring(prefix.length()).trim(), key);
    }

    private static String binary() {
        String binary = System.getProperty("sika.sandbox.bin");
        if (binary == null || binary.isEmpty()) {
            binary = System.getenv("SIKA_SANDBOX_BIN");
        }
        return binary == null || binary.isEmpty() ? "sika-sandbox" : binary;
    }

    /** @return the sandbox's base URL, {@code http://127.0.0.1:PORT} */
    public String baseUrl() {
        return baseUrl;
    }

    /** @return the key this sandbox accepts (random per sandbox; give it to the code under test) */
    public String secretKey() {
        return secretKey;
    }

    /** Never the key: a failing assertion may print the handle. */
    @Override
    public String toString() {
        return "SikaSandbox(" + baseUrl + ")";
    }

    /** @return a configuration for this sandbox's URL and key, every other setting the default */
    public ClientConfig config() {
        return new ClientConfig(new SecretKey(secretKey), baseUrl, 10_000L, null, null, null, null, null, null,
                null, null);
    }

    /**
     * @return a new async client for this sandbox (close it)
     * @throws SikaException.Configuration as the client's constructor does
     */
    public Client client() throws SikaException {
        return new Client(config());
    }

    /**
     * @return a new blocking client for this sandbox (close it)
     * @throws SikaException.Configuration as the client's constructor does
     */
    public BlockingClient blockingClient() throws SikaException {
        return new BlockingClient(config());
    }

    /**
     * Stores a transaction as the service would report it, replacing one with the same reference.
     *
     * @param reference the transaction's reference
     * @param amount its amount, sent as the number's exact text ({@code 25.50} stays {@code 25.50})
     * @param currency its currency, e.g. {@code GHS}
     * @param status its status, any text (also one the service never documented)
     * @return the object stored
     */
    public Map<String, Object> seedTransaction(String reference, BigDecimal amount, String currency, String status) {
        Objects.requireNonNull(amount, "amount");
        for (String[] field : new String[][] {{"reference", reference}, {"currency", currency}, {"status", status}}) {
            if (field[1] == null || field[1].isEmpty()) {
                throw new IllegalArgumentException(field[0] + " must be a non-empty string");
            }
        }
        if (amount.signum() < 0) {
            throw new IllegalArgumentException("amount must not be negative: " + amount.toPlainString());
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("tx_ref", reference);
        fields.put("currency", currency);
        fields.put("status", status);
        fields.put("payment_type", "mobile_money");
        String text = write(fields);
        text = text.substring(0, text.length() - 1) + ",\"amount\":" + amount.toPlainString() + "}";
        return asMap(call("seed_transaction", null, text));
    }

    /**
     * Changes a transaction's status.
     *
     * @param reference the transaction's reference
     * @param status the new status, any text
     */
    public void setStatus(String reference, String status) {
        call("set_status", reference, write(Map.of("status", status)));
    }

    /**
     * Makes the next {@code count} API requests under {@code path} fail as {@code kind} says.
     *
     * @param path the API path, e.g. {@code /transaction/verify}
     * @param kind the fault ({@code status}, {@code delay}, {@code reset}...: the sandbox's README)
     * @param count how many requests it applies to
     * @param options the fault's other fields, e.g. {@code status=503}
     * @return the fault as the sandbox lists it
     */
    public Map<String, Object> addFault(String path, String kind, int count, Map<String, Object> options) {
        Map<String, Object> body = new HashMap<>(options);
        body.put("path", path);
        body.put("kind", kind);
        body.put("count", count);
        return asMap(call("add_fault", null, write(body)));
    }

    /** @return the API requests the sandbox received: method, path, query, authorized */
    public List<Map<String, Object>> requests() {
        return asList(call("requests", null, null));
    }

    /**
     * Where the sandbox delivers notifications.
     *
     * @param url a loopback URL, or {@code null} for nowhere
     */
    public void setWebhookUrl(String url) {
        Map<String, Object> settings = new HashMap<>();
        settings.put("webhook_url", url);
        changeSettings(settings);
    }

    /**
     * Changes run-time settings ({@code webhook_url}, {@code confirm_after_ms}, {@code
     * webhook_repeat}, {@code webhook_retry_ms}); {@link #reset()} puts the kit's back.
     *
     * @param settings the settings to change
     * @return the settings now
     */
    public Map<String, Object> changeSettings(Map<String, Object> settings) {
        return asMap(call("change_settings", null, write(settings)));
    }

    /**
     * Delivers the {@code charge.success} notification of {@code reference} to the webhook URL.
     *
     * @param reference the transaction's reference
     * @param times how many deliveries (1 to 100)
     * @param concurrent all at once rather than one after the other
     * @return each delivery's first attempt, with the receiver's answer and time
     */
    public List<Map<String, Object>> trigger(String reference, int times, boolean concurrent) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("reference", reference);
        body.put("event", "charge.success");
        body.put("times", times);
        body.put("concurrent", concurrent);
        return asList(call("send_webhook", null, write(body)));
    }

    /**
     * @return every webhook delivery attempt, oldest first: reference, event, url, http_status,
     *     delivered, delivery_id, attempt, sent_at, duration_ms
     */
    public List<Map<String, Object>> deliveries() {
        return asList(call("webhooks", null, null));
    }

    /**
     * Forgets transactions, requests, deliveries and faults, and puts back the kit's settings (no
     * webhook URL, no retries, one delivery per notification).
     */
    public void reset() {
        call("reset", null, null);
        Map<String, Object> settings = new HashMap<>();
        settings.put("webhook_url", null);
        settings.put("confirm_after_ms", DEFAULT_CONFIRM_AFTER_MS);
        settings.put("webhook_repeat", 1);
        settings.put("webhook_retry_ms", List.of());
        changeSettings(settings);
    }

    /** Stops the sandbox. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private JsonNode call(String operation, String reference, String body) {
        JsonNode spec = OPERATIONS.get(operation);
        String path = spec.get("path").asText();
        if (reference != null) {
            path = path.replace("{reference}", URLEncoder.encode(reference, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        String method = spec.get("method").asText();
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new SandboxException("sandbox control " + operation + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("sandbox control " + operation + ": interrupted", e);
        }
        if (response.statusCode() != spec.get("expect").asInt()) {
            throw new SandboxException("sandbox control " + operation + " (" + method + " " + path + "): HTTP "
                    + response.statusCode() + ": " + response.body());
        }
        try {
            return JSON.readTree(response.body()).get("data");
        } catch (IOException e) {
            throw new SandboxException("sandbox control " + operation + ": not JSON: " + response.body(), e);
        }
    }

    private static JsonNode readOperations() {
        try (InputStream in = SikaSandbox.class.getResourceAsStream("sandbox_control.json")) {
            if (in == null) {
                throw new IllegalStateException("sandbox_control.json is missing from the jar");
            }
            return JSON.readTree(in).get("operations");
        } catch (IOException e) {
            throw new IllegalStateException("sandbox_control.json: " + e.getMessage(), e);
        }
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static Map<String, Object> asMap(JsonNode node) {
        return JSON.convertValue(node, new TypeReference<Map<String, Object>>() {});
    }

    private static List<Map<String, Object>> asList(JsonNode node) {
        List<Map<String, Object>> list = JSON.convertValue(node, new TypeReference<List<Map<String, Object>>>() {});
        return list == null ? new ArrayList<>() : list;
    }
}
