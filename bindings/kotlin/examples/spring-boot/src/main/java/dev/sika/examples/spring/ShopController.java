package dev.sika.examples.spring;

import dev.sika.BlockingClient;
import dev.sika.BlockingLedger;
import dev.sika.ChargeRequest;
import dev.sika.PaymentCheck;
import dev.sika.SikaException;
import dev.sika.Sika;
import dev.sika.Transaction;
import dev.sika.WebhookDecision;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ShopController {
    /** A notification is a few hundred bytes; 64 KiB leaves room and bounds what one request costs. */
    public static final int MAX_WEBHOOK_BODY_BYTES = 64 * 1024;
    /** Where the service sends the customer back after a card or bank payment. */
    private static final String RETURN_URL = "https://shop.example.com/orders/return";
    private static final Logger log = LoggerFactory.getLogger(ShopController.class);

    private final BlockingClient client;
    private final BlockingLedger ledger;
    private final Orders orders;

    public ShopController(BlockingClient client, BlockingLedger ledger, Orders orders) {
        this.client = client;
        this.ledger = ledger;
        this.orders = orders;
    }

    /** What a customer posts: the amount as text (an exact decimal), and how to reach them. */
    public record OrderRequest(String amount, String email, String phoneNumber) {}

    @PostMapping("/orders")
    public ResponseEntity<Map<String, Object>> order(@RequestBody OrderRequest asked) throws SikaException {
        BigDecimal amount;
        try {
            amount = new BigDecimal(asked.amount());
        } catch (NumberFormatException | NullPointerException e) {
            return ResponseEntity.badRequest().build();
        }
        Orders.Order order = new Orders.Order("ORDER-" + UUID.randomUUID(), amount, "GHS", null);
        orders.add(order); // before the charge: its webhook may arrive before the answer
        try {
            // Through the ledger: the order's figures are recorded (for the scheduled reconcile),
            // then the charge is sent.
            ledger.initiateCharge(client, new ChargeRequest(order.amount(), asked.email(), asked.phoneNumber(), order.reference(),
                    order.currency(), "MTN", RETURN_URL));
            return ResponseEntity.status(HttpStatus.CREATED).body(orderJson(order, "pending", null));
        } catch (SikaException.InvalidInput e) {
            orders.remove(order.reference()); // refused before anything was sent
            return ResponseEntity.badRequest().body(Map.of("error", "InvalidInput", "field", e.getField()));
        } catch (SikaException.ChargeOutcomeUnknown e) {
            // The service may have taken it: never charge again; the check or webhook decides.
            return ResponseEntity.status(HttpStatus.ACCEPTED).body(orderJson(order, "pending", null));
        }
    }

    @GetMapping("/orders/{reference}")
    public ResponseEntity<Map<String, Object>> check(@PathVariable String reference) throws SikaException {
        Orders.Order order = orders.find(reference).orElse(null);
        if (order == null) {
            return ResponseEntity.notFound().build();
        }
        PaymentCheck check = client.confirmPayment(order.reference(), order.expected());
        String state;
        Transaction transaction;
        if (check instanceof PaymentCheck.Confirmed confirmed) {
            orders.fulfilOnce(order.reference(), "check"); // idempotent: the webhook may be first
            state = "paid";
            transaction = confirmed.getTransaction();
        } else if (check instanceof PaymentCheck.NotYet notYet) {
            state = "pending";
            transaction = notYet.getTransaction();
        } else if (check instanceof PaymentCheck.NotPaid notPaid) {
            state = "not paid";
            transaction = notPaid.getTransaction();
        } else {
            PaymentCheck.Mismatch mismatch = (PaymentCheck.Mismatch) check;
            state = mismatch.getField() + " does not match";
            transaction = mismatch.getTransaction();
        }
        return ResponseEntity.ok(orderJson(orders.find(reference).orElseThrow(), state, transaction));
    }

    @PostMapping("/webhooks/sika")
    public ResponseEntity<Void> webhook(HttpServletRequest request) throws IOException, SikaException {
        // Read at most MAX_WEBHOOK_BODY_BYTES: anyone can post here, and a body read whole
        // without a cap lets one request fill the server's memory.
        if (request.getContentLengthLong() > MAX_WEBHOOK_BODY_BYTES) {
            return ResponseEntity.status(HttpStatus.PAYLOAD_TOO_LARGE).build();
        }
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes(MAX_WEBHOOK_BODY_BYTES + 1);
        }
        if (body.length > MAX_WEBHOOK_BODY_BYTES) {
            return ResponseEntity.status(HttpStatus.PAYLOAD_TOO_LARGE).build();
        }
        Orders.Order order;
        try {
            // Unverified: only to find the order the notification claims to be about.
            String reference = Sika.parseWebhookEvent(body).getReference(); // null: none named
            order = reference == null ? null : orders.find(reference).orElse(null);
        } catch (SikaException e) {
            order = null;
        }
        if (order == null) {
            return ResponseEntity.badRequest().build();
        }
        // The notification is only a hint: handleWebhook verifies it with the service. On a
        // virtual thread this call parks: the carrier serves other requests meanwhile.
        WebhookDecision decision = client.handleWebhook(body, order.expected());
        if (decision instanceof WebhookDecision.Fulfil) {
            orders.fulfilOnce(order.reference(), "webhook"); // idempotent: deliveries repeat
        } else if (decision instanceof WebhookDecision.Investigate investigate) {
            log.warn("order {}: {}", order.reference(), investigate.getReason());
        }
        return ResponseEntity.status(decision.httpStatus()).build();
    }

    /** The service's answers the shop cannot act on: say so, never "paid". */
    @ExceptionHandler(SikaException.class)
    public ResponseEntity<Map<String, Object>> failed(SikaException error) {
        HttpStatus status = error instanceof SikaException.TransactionNotFound ? HttpStatus.NOT_FOUND : HttpStatus.BAD_GATEWAY;
        return ResponseEntity.status(status).body(Map.of("error", error.getClass().getSimpleName()));
    }

    private static Map<String, Object> orderJson(Orders.Order order, String state, Transaction transaction) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("reference", order.reference());
        json.put("amount", order.amount().toPlainString());
        json.put("state", state);
        json.put("fulfilled_by", order.fulfilledBy());
        if (transaction != null) {
            json.put("status", transaction.getStatus().toString());
        }
        return json;
    }
}
