// A small shop as a Spring Boot application: the customer orders (a mobile money charge), checks
// the order (the payment confirmed against it), and the service's webhook fulfils it. Every
// decision is the SDK's: the shop only stores orders and answers HTTP.
//
// Run it against the sandbox: SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=sk_test_... \
//   mvn spring-boot:run   (JDK 21+ for virtual threads; JDK 17 serves on platform threads)
package dev.sika.examples.spring;

import dev.sika.BlockingClient;
import dev.sika.BlockingLedger;
import dev.sika.ClientConfig;
import dev.sika.LedgerOptions;
import dev.sika.SecretKey;
import dev.sika.SikaException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

@SpringBootApplication
@EnableScheduling // the reconcile of the payments still open (Reconciler)
public class ShopApplication {
    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }

    /**
     * One client for the application: its connections are shared by every request. A bean is
     * destroyed after the web server's graceful shutdown, so calls in flight finish first;
     * close() shuts its connections and frees the native object.
     */
    @Bean(destroyMethod = "close")
    BlockingClient sikaClient(@Value("${sika.secret-key}") String secretKey, @Value("${sika.base-url}") String baseUrl)
            throws SikaException {
        // ClientConfig(secretKey, baseUrl, timeoutMs, connectTimeoutMs, maxRetries,
        // bankCacheTtlSeconds, userAgentSuffix, proxy, notFoundGraceMs, maxConnectionsPerHost,
        // poolIdleTimeoutMs): null keeps a setting's default. 5 s: a webhook answers well
        // within the service's own wait.
        return new BlockingClient(new ClientConfig(new SecretKey(secretKey), baseUrl,
                5_000L, null, null, null, null, null, null, null, null));
    }

    /**
     * The ledger of the payments the shop expects (a SQLite file; PostgreSQL when several
     * instances share the orders): each order is expected as it is placed, and the scheduled
     * reconcile (Reconciler) fulfils those whose webhook never came.
     */
    @Bean(destroyMethod = "close")
    BlockingLedger sikaLedger(@Value("${shop.ledger-file}") String file) throws SikaException {
        return BlockingLedger.sqlite(file, new LedgerOptions());
    }

    @Bean
    Orders orders() {
        return new Orders();
    }
}
