package dev.sika.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sika.Sandbox;
import dev.sika.SandboxKt;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import kotlin.Pair;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Spring Boot shop (src/main/java) as a merchant deploys it, driven over HTTP as its
 * customers and the service's webhooks reach it: one sandbox for the class, an application per
 * test on a free loopback port, closed at its end (Spring's graceful shutdown).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShopApplicationTest {
    // The sandbox answers a USSD charge after this delay, then delivers charge.success.
    private static final int CONFIRM_AFTER_MS = 150;
    // The sandbox answers by the phone's last four digits: 0000 pays.
    private static final String PHONE_PAYS = "+233244120000";
    // Well above the sandbox's delays and the shop's 5 s SDK timeout: a wait this long is a hang.
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    // How long the service takes to answer the slow verifies below: long enough that the
    // calls are surely still in flight while the test acts, well under the SDK's 5 s timeout.
    private static final int SLOW_VERIFY_MS = 2_500;

    private final Sandbox sandbox = new Sandbox(CONFIRM_AFTER_MS);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    @AfterAll
    void stopSandbox() {
        sandbox.close();
    }

    /** A fresh ledger file for one run of the shop. */
    private static String ledgerFile() {
        try {
            return java.nio.file.Files.createTempDirectory("spring-shop").resolve("ledger.db").toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The shop on a free port, with the sandbox delivering its webhooks to it. */
    private final class RunningShop implements AutoCloseable {
        final ConfigurableApplicationContext context = new SpringApplicationBuilder(ShopApplication.class)
                // As command-line arguments: they override application.properties.
                .run("--server.port=0", "--server.address=127.0.0.1", "--sika.base-url=" + sandbox.getUrl(),
                        "--sika.secret-key=" + SandboxKt.KEY, "--spring.main.banner-mode=off",
                        "--shop.ledger-file=" + ledgerFile());
        final String url = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");

        RunningShop() {
            sandbox.deliverWebhooksTo(url + "/webhooks/sika");
        }

        @Override
        public void close() {
            context.close();
        }
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return sendAsync(request).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    /** The shop's answer; none of them may ever contain the secret key. */
    private CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest request) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
            if (response.body().contains(SandboxKt.KEY)) {
                throw new AssertionError("the key in an answer of " + request.uri());
            }
            return response;
        });
    }

    private static HttpRequest order(RunningShop shop, String amount, String phone) {
        return HttpRequest.newBuilder(URI.create(shop.url + "/orders")).timeout(DEADLINE)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"amount\":\"" + amount + "\",\"email\":\"ama@example.com\",\"phone_number\":\"" + phone + "\"}"))
                .header("content-type", "application/json").build();
    }

    private static HttpRequest check(RunningShop shop, String reference) {
        return HttpRequest.newBuilder(URI.create(shop.url + "/orders/" + reference)).timeout(DEADLINE).GET().build();
    }

    private static HttpRequest webhook(RunningShop shop, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create(shop.url + "/webhooks/sika")).timeout(DEADLINE)
                .POST(body).header("content-type", "application/json").build();
    }

    private static HttpRequest webhook(RunningShop shop, String body) {
        return webhook(shop, HttpRequest.BodyPublishers.ofString(body));
    }

    private static String event(String reference) {
        return "{\"event\":\"charge.success\",\"data\":{\"reference\":\"" + reference + "\"}}";
    }

    private String placeOrder(RunningShop shop, String amount, String phone) throws Exception {
        HttpResponse<String> response = send(order(shop, amount, phone));
        assertEquals(201, response.statusCode(), response.body());
        return json.readTree(response.body()).get("reference").asText();
    }

    /** The sandbox's list (kotlinx JSON elements) as Jackson nodes. */
    private JsonNode tree(List<?> elements) throws Exception {
        return json.readTree(elements.toString());
    }

    private List<JsonNode> deliveriesFor(String reference) throws Exception {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode delivery : tree(sandbox.webhooks())) {
            if (reference.equals(delivery.path("reference").asText())) {
                found.add(delivery);
            }
        }
        return found;
    }

    private long verifiesOf(String reference) throws Exception {
        long count = 0;
        for (JsonNode request : tree(sandbox.requests())) {
            if (request.path("path").asText().equals("/transaction/verify/" + reference)) {
                count++;
            }
        }
        return count;
    }

    /** Waits for {@code condition}, failing after the deadline: a wait that never ends is a hang. */
    private static void waitFor(String what, Supplier<Boolean> condition) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < end) {
            if (condition.get()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("waited " + DEADLINE + " for: " + what);
    }

    private interface Check {
        boolean get() throws Exception;
    }

    private static Supplier<Boolean> unchecked(Check check) {
        return () -> {
            try {
                return check.get();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
    }

    @Test
    void b39_an_order_paid_by_the_customer_is_fulfilled_by_the_sandboxs_webhook_once() throws Exception {
        try (RunningShop shop = new RunningShop()) {
            String reference = placeOrder(shop, "20.00", PHONE_PAYS);
            waitFor("webhook delivery for " + reference, unchecked(() -> !deliveriesFor(reference).isEmpty()));
            JsonNode delivery = deliveriesFor(reference).get(0);
            assertEquals(200, delivery.get("http_status").asInt(), delivery.toString());

            JsonNode answer = json.readTree(send(check(shop, reference)).body());
            assertEquals("paid", answer.get("state").asText(), answer.toString());
            assertEquals("webhook", answer.get("fulfilled_by").asText(), "the webhook came first and fulfilled it");
            assertEquals("successful", answer.get("status").asText());
            assertEquals("20.00", answer.get("amount").asText());

            // Deliveries repeat: each is acknowledged, and the order stays fulfilled once.
            JsonNode repeated = tree(sandbox.sendWebhook(reference, 2, null));
            assertEquals(200, repeated.get(0).get("http_status").asInt());
            assertEquals(200, repeated.get(1).get("http_status").asInt());
            assertEquals("webhook", json.readTree(send(check(shop, reference)).body()).get("fulfilled_by").asText());
        }
    }

    @Test
    void b39_junk_and_unknown_webhooks_are_answered_400_without_asking_the_service() throws Exception {
        try (RunningShop shop = new RunningShop()) {
            sandbox.clearRequests();
            for (String body : List.of("", "not json", "{", "{\"event\":\"charge.success\"}", event("ORDER-not-ours"))) {
                assertEquals(400, send(webhook(shop, body)).statusCode(), "body: " + body);
            }
            assertEquals(404, send(check(shop, "ORDER-never-placed")).statusCode());
            assertEquals("[]", tree(sandbox.requests()).toString(), "no request reached the service");
        }
    }

    @Test
    void b73_a_webhook_body_over_the_cap_is_refused_with_413_unread() throws Exception {
        try (RunningShop shop = new RunningShop()) {
            sandbox.clearRequests();
            String big = "{\"event\":\"charge.success\",\"pad\":\"" + "x".repeat(ShopController.MAX_WEBHOOK_BODY_BYTES) + "\"}";
            assertEquals(413, send(webhook(shop, big)).statusCode(), "a declared length over the cap");
            // Chunked (no declared length): the shop stops reading at the cap.
            HttpRequest.BodyPublisher chunked = HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(big));
            assertEquals(413, send(webhook(shop, chunked)).statusCode(), "a chunked body over the cap");
            assertEquals("[]", tree(sandbox.requests()).toString(), "nothing verified");
        }
    }

    @Test
    void b120_a_webhook_in_flight_at_shutdown_is_answered_before_the_client_closes() throws Exception {
        RunningShop shop = new RunningShop();
        CompletableFuture<HttpResponse<String>> inFlight;
        try {
            String reference = placeOrder(shop, "12.00", PHONE_PAYS);
            waitFor("the charge to succeed", unchecked(() -> !deliveriesFor(reference).isEmpty()));
            // The next verify of this order is slow: the webhook is still in flight when the
            // application is told to stop (as SIGTERM tells it).
            sandbox.fault("/transaction/verify/" + reference, "delay", new Pair<>("delay_ms", SLOW_VERIFY_MS));
            long before = verifiesOf(reference);
            inFlight = sendAsync(webhook(shop, event(reference)));
            waitFor("the webhook's verify to reach the service", unchecked(() -> verifiesOf(reference) > before));
        } finally {
            shop.close(); // graceful: waits for the request in flight, then destroys the client bean
        }
        HttpResponse<String> answer = inFlight.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals(200, answer.statusCode(), "the webhook verified during shutdown is answered Fulfil, not cut off");
    }

    @Test
    void b121_webhooks_waiting_on_the_service_leave_other_endpoints_answering_on_virtual_threads() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        int waiting = 8;
        try (RunningShop shop = new RunningShop()) {
            String reference = placeOrder(shop, "9.00", PHONE_PAYS);
            waitFor("the charge to succeed", unchecked(() -> !deliveriesFor(reference).isEmpty()));
            sandbox.fault("/transaction/verify/" + reference, "delay", waiting,
                    new kotlinx.serialization.json.JsonObject(java.util.Map.of(
                            "delay_ms", kotlinx.serialization.json.JsonElementKt.JsonPrimitive(SLOW_VERIFY_MS))));
            long before = verifiesOf(reference);
            List<CompletableFuture<HttpResponse<String>>> webhooks = new ArrayList<>();
            for (int i = 0; i < waiting; i++) {
                webhooks.add(sendAsync(webhook(shop, event(reference))));
            }
            // All 8 are inside BlockingClient.handleWebhook, more than the carriers (2 here):
            // had they pinned their carriers, no other request would run until they finished.
            waitFor(waiting + " verifies in flight", unchecked(() -> verifiesOf(reference) - before >= waiting));
            HttpResponse<String> other = send(check(shop, "ORDER-never-placed"));
            boolean anyDone = webhooks.stream().anyMatch(CompletableFuture::isDone);
            assertEquals(404, other.statusCode());
            assertFalse(anyDone, "the other endpoint answered only after the webhooks: their calls held the carriers");
            for (CompletableFuture<HttpResponse<String>> answer : webhooks) {
                assertEquals(200, answer.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).statusCode());
            }
            assertTrue(verifiesOf(reference) - before >= waiting);
        }
    }
}
