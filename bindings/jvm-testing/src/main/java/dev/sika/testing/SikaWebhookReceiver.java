package dev.sika.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The merchant's webhook endpoint for a test (as Python's {@code sika_webhook_receiver} and Swift's
 * {@code SikaWebhookReceiver}): an HTTP server on a free loopback port that answers each delivery
 * with what its {@link Handler} returns for the body, and records it. Give {@link #url()} to the
 * sandbox ({@link SikaSandbox#setWebhookUrl}) or to the code under test. A delivery is recorded
 * before it is answered, so once {@link SikaSandbox#trigger} returned, {@link #deliveries()} holds
 * its deliveries. A handler that throws is answered 500, with the error in the delivery's
 * {@code error}. Deliveries are served at once, each on a thread of its own, as a merchant's server
 * would serve them; {@link #close()} stops it.
 *
 * <p>It runs on the JDK's own {@code com.sun.net.httpserver} (module {@code jdk.httpserver}), so
 * the kit adds no server dependency to a merchant's tests.
 */
public final class SikaWebhookReceiver implements AutoCloseable {
    /** The path deliveries are received on. */
    public static final String PATH = "/webhooks/sika";

    /** The most of a delivery's body that is read; a longer one is answered 413, unhandled. */
    public static final int MAX_BODY_BYTES = 1 << 20;

    /** What the receiver does with a delivery: its body in, the HTTP status to answer out. */
    @FunctionalInterface
    public interface Handler {
        /**
         * @param body the delivery's body, as sent
         * @return the HTTP status to answer (200 for "handled")
         * @throws Exception anything: the delivery is answered 500 and the error recorded
         */
        int handle(byte[] body) throws Exception;
    }

    /**
     * One delivery as received, with the status it was answered.
     *
     * @param path the request's path
     * @param headers its headers, names in lower case (the last value of a repeated one)
     * @param body its body
     * @param status the status it was answered
     * @param error what the handler threw (answered 500), else {@code null}
     */
    public record Delivery(String path, Map<String, String> headers, byte[] body, int status, String error) {
        /** @return the body as UTF-8 text */
        public String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final List<Delivery> deliveries = new ArrayList<>();
    private volatile Handler handler;

    private SikaWebhookReceiver(Handler handler) throws IOException {
        this.handler = Objects.requireNonNull(handler, "handler");
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        threads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "sika-webhook-receiver");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(threads);
        server.createContext("/", this::serve);
        server.start();
    }

    /**
     * Starts a receiver that answers every delivery 200; set what it does with {@link #setHandler}.
     *
     * @return the listening receiver
     * @throws IOException when no loopback port can be bound
     */
    public static SikaWebhookReceiver start() throws IOException {
        return new SikaWebhookReceiver(body -> 200);
    }

    /**
     * Starts a receiver that answers each delivery with {@code handler}'s status.
     *
     * @param handler the merchant's webhook handler under test
     * @return the listening receiver
     * @throws IOException when no loopback port can be bound
     */
    public static SikaWebhookReceiver start(Handler handler) throws IOException {
        return new SikaWebhookReceiver(handler);
    }

    /** @return {@code http://127.0.0.1:PORT/webhooks/sika} */
    public String url() {
        InetSocketAddress address = server.getAddress();
        return "http://" + address.getAddress().getHostAddress() + ":" + address.getPort() + PATH;
    }

    /** @param handler the handler of the deliveries to come */
    public void setHandler(Handler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** @return what it received so far, in the order answered */
    public List<Delivery> deliveries() {
        synchronized (deliveries) {
            return List.copyOf(deliveries);
        }
    }

    /** Stops listening, waiting up to a second for deliveries being served. Safe to call twice. */
    @Override
    public void close() {
        server.stop(1);
        threads.shutdown();
        try {
            threads.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> headers = new TreeMap<>();
            exchange.getRequestHeaders().forEach((name, values) ->
                    headers.put(name.toLowerCase(Locale.ROOT), values.isEmpty() ? "" : values.get(values.size() - 1)));
            byte[] body = readBounded(exchange.getRequestBody());
            int status;
            String error = null;
            if (body == null) {
                body = new byte[0];
                status = 413;
            } else {
                try {
                    status = handler.handle(body);
                    if (status < 100 || status > 599) {
                        error = "the handler answered " + status + ", not an HTTP status";
                        status = 500;
                    }
                } catch (Exception thrown) {
                    status = 500;
                    StringWriter trace = new StringWriter();
                    thrown.printStackTrace(new PrintWriter(trace));
                    error = trace.toString();
                }
            }
            // Recorded before it is answered: the sandbox's trigger returns after the answer.
            synchronized (deliveries) {
                deliveries.add(new Delivery(exchange.getRequestURI().getPath(), Map.copyOf(headers), body, status, error));
            }
            exchange.getResponseHeaders().set("Connection", "close");
            exchange.sendResponseHeaders(status, -1);
        }
    }

    /** The body, or {@code null} when it is longer than {@link #MAX_BODY_BYTES}. */
    private static byte[] readBounded(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        return body.length > MAX_BODY_BYTES ? null : body;
    }
}
