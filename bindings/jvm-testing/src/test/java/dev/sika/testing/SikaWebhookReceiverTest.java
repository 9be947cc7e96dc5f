package dev.sika.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sika.BlockingClient;
import dev.sika.BlockingLedger;
import dev.sika.ExpectedPayment;
import dev.sika.Fulfilment;
import dev.sika.LedgerDecision;
import dev.sika.LedgerOptions;
import dev.sika.SikaException;
import dev.sika.WebhookDecision;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * B316: {@link SikaWebhookReceiver}, the JVM kit's endpoint for the merchant's webhook handler (as
 * Python's {@code sika_webhook_receiver} and Swift's receiver; before issue 47 a JVM test had to
 * write its own server). It records each delivery (path, lower-case headers, body, status) before
 * answering it, so {@code trigger} returns with them recorded; it serves deliveries at once, so a
 * handler that is not idempotent is counted three shipments for one notification delivered three
 * times at once, and the ledger's handler one; a handler that throws, or answers no HTTP status,
 * is answered 500 with the error recorded; a body over its bound is answered 413, unhandled.
 */
@ExtendWith(SikaSandboxExtension.class)
class SikaWebhookReceiverTest {
    private static final ExpectedPayment ORDER = new ExpectedPayment(new BigDecimal("25.50"), "GHS");

    @Test
    void b316AHandlerThatIsNotIdempotentIsCountedThreeShipments(SikaSandbox sandbox, SikaWebhookReceiver receiver)
            throws SikaException {
        List<String> shipped = Collections.synchronizedList(new java.util.ArrayList<>());
        try (BlockingClient client = sandbox.blockingClient()) {
            receiver.setHandler(body -> {
                WebhookDecision decision = client.handleWebhook(body, ORDER);
                if (decision instanceof WebhookDecision.Fulfil fulfil) {
                    shipped.add(fulfil.getTransaction().getTxRef());
                }
                return decision.httpStatus();
            });
            sandbox.setWebhookUrl(receiver.url());
            sandbox.seedTransaction("ORDER-41", new BigDecimal("25.50"), "GHS", "successful");
            sandbox.trigger("ORDER-41", 3, true);
        }
        assertEquals(List.of("ORDER-41", "ORDER-41", "ORDER-41"), shipped, "served at once, each shipped");
        List<SikaWebhookReceiver.Delivery> deliveries = receiver.deliveries();
        assertEquals(3, deliveries.size(), "recorded before trigger returned: " + deliveries);
        for (SikaWebhookReceiver.Delivery delivery : deliveries) {
            assertEquals(SikaWebhookReceiver.PATH, delivery.path());
            assertTrue(delivery.headers().get("content-type").startsWith("application/json"), delivery.headers().toString());
            assertTrue(delivery.text().contains("ORDER-41"), delivery.text());
            assertEquals(200, delivery.status());
            assertNull(delivery.error());
        }
    }

    @Test
    void b316TheLedgersHandlerShipsOnceForThreeDeliveriesAtOnce(
            SikaSandbox sandbox, SikaWebhookReceiver receiver, @TempDir Path directory) throws SikaException {
        List<String> shipped = Collections.synchronizedList(new java.util.ArrayList<>());
        try (BlockingClient client = sandbox.blockingClient();
                BlockingLedger ledger = BlockingLedger.sqlite(directory.resolve("ledger.db").toString(), new LedgerOptions())) {
            receiver.setHandler(body -> {
                LedgerDecision decision = ledger.handleWebhook(client, body);
                if (decision instanceof LedgerDecision.Fulfil fulfil) {
                    Fulfilment.fulfil(ledger, fulfil.getClaim(), claim -> shipped.add(claim.getReference()));
                }
                return decision.httpStatus();
            });
            sandbox.setWebhookUrl(receiver.url());
            ledger.expect("ORDER-42", ORDER);
            sandbox.seedTransaction("ORDER-42", new BigDecimal("25.50"), "GHS", "successful");
            sandbox.trigger("ORDER-42", 3, true);
        }
        assertEquals(List.of("ORDER-42"), shipped, "three deliveries, one shipment");
        Set<Integer> statuses = receiver.deliveries().stream().map(SikaWebhookReceiver.Delivery::status).collect(Collectors.toSet());
        assertEquals(3, receiver.deliveries().size());
        assertTrue(Set.of(200, 503).containsAll(statuses), "200 once fulfilled, 503 while claimed: " + statuses);
    }

    @Test
    void b316AHandlerThatThrowsIsAnswered500WithItsErrorRecorded(SikaSandbox sandbox, SikaWebhookReceiver receiver) {
        receiver.setHandler(body -> {
            throw new IllegalStateException("the order store is down");
        });
        sandbox.setWebhookUrl(receiver.url());
        sandbox.seedTransaction("ORDER-43", new BigDecimal("25.50"), "GHS", "successful");
        List<java.util.Map<String, Object>> answered = sandbox.trigger("ORDER-43", 1, false);
        assertEquals(500, ((Number) answered.get(0).get("http_status")).intValue(), answered.toString());
        SikaWebhookReceiver.Delivery delivery = receiver.deliveries().get(0);
        assertEquals(500, delivery.status());
        assertTrue(delivery.error().contains("the order store is down"), delivery.error());

        receiver.setHandler(body -> 42);
        sandbox.trigger("ORDER-43", 1, false);
        SikaWebhookReceiver.Delivery odd = receiver.deliveries().get(1);
        assertEquals(500, odd.status());
        assertTrue(odd.error().contains("answered 42"), odd.error());
    }

    @Test
    void b316ABodyOverTheBoundIsAnswered413Unhandled() throws Exception {
        List<byte[]> handled = Collections.synchronizedList(new java.util.ArrayList<>());
        try (SikaWebhookReceiver receiver = SikaWebhookReceiver.start(body -> {
            handled.add(body);
            return 200;
        })) {
            HttpClient http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
            byte[] big = new byte[SikaWebhookReceiver.MAX_BODY_BYTES + 1];
            HttpResponse<Void> tooBig = http.send(
                    HttpRequest.newBuilder(URI.create(receiver.url())).POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertEquals(413, tooBig.statusCode());
            HttpResponse<Void> small = http.send(
                    HttpRequest.newBuilder(URI.create(receiver.url())).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertEquals(200, small.statusCode());
            assertEquals(1, handled.size(), "only the small body reached the handler");
            assertEquals(List.of(413, 200), receiver.deliveries().stream().map(SikaWebhookReceiver.Delivery::status).toList());
        }
    }
}
