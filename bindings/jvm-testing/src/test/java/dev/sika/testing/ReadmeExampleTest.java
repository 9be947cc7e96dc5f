package dev.sika.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * B317: the root README's JVM kit example is the consumer project's test file, byte for byte
 * (its first line names the file), so the example merchants copy runs as it is written in
 * {@code scripts/test-installed-maven} against the release files; and it counts shipments,
 * not statuses (before issue 47 the example only confirmed a seeded payment).
 */
class ReadmeExampleTest {
    private static final Pattern KOTLIN_BLOCK = Pattern.compile("```kotlin\n(.*?)```", Pattern.DOTALL);
    private static final String CONSUMER = "// tests/maven-consumer/";

    /** The repository's root: the nearest directory above this module's with a README.md and tests/. */
    private static Path root() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            if (Files.isRegularFile(at.resolve("README.md")) && Files.isDirectory(at.resolve("tests/maven-consumer"))) {
                return at;
            }
        }
        throw new AssertionError("no repository root above " + Path.of("").toAbsolutePath());
    }

    @Test
    void b317TheReadmesKitExampleIsTheConsumersTestFileAndCountsShipments() throws IOException {
        Path root = root();
        Matcher blocks = KOTLIN_BLOCK.matcher(Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8));
        List<String> examples = new ArrayList<>();
        while (blocks.find()) {
            if (blocks.group(1).startsWith(CONSUMER)) {
                examples.add(blocks.group(1));
            }
        }
        assertFalse(examples.isEmpty(), "the README has no Kotlin block naming a file of tests/maven-consumer");
        for (String example : examples) {
            String file = example.substring("// ".length(), example.indexOf('\n'));
            String written = Files.readString(root.resolve(file), StandardCharsets.UTF_8);
            assertEquals(written, example, "README.md's example differs from " + file);
            assertTrue(example.contains("SikaWebhookReceiver") && example.contains("shipped"),
                    "the kit example counts shipments through the receiver");
        }
    }
}
