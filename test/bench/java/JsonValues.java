/*
 * Compressible JSON record values for the benchmark's compressed workloads, and the expected
 * result of a field transform on them, computed by Kafka Connect's own JsonConverter and
 * InsertField SMT (from the Kafka jars), so the harness can verify a transformed target against
 * what MirrorMaker 2 with the same SMT would have written.
 */
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.InsertField;

final class JsonValues {
    private JsonValues() {}

    private static final String[] EVENTS = {"page_view", "add_to_cart", "checkout", "search", "login", "logout", "click", "scroll"};
    private static final String[] PAGES = {"products", "cart", "search", "account", "help", "blog", "offers", "home"};
    private static final String[] COUNTRIES = {"DE", "FR", "US", "GB", "NL", "SE", "ES", "IT", "PL", "JP"};
    private static final String[] AGENTS = {
        "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) Safari/605.1",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2) Mobile/15E148",
    };
    private static final String[] WORDS = {"order", "shipped", "pending", "customer", "returned", "priority", "standard", "express", "gift", "note"};

    /**
     * A JSON object of exactly `size` ASCII bytes, as an event log would hold: an id, a user, an
     * event, a page, a country, an amount, a timestamp and a user agent picked from small
     * vocabularies, then a `note` of words padding it to the size. Whole numbers and plain strings
     * only, so that a JSON reader and writer give back the same text.
     */
    static byte[] value(SplittableRandom random, long index, int size) {
        StringBuilder s = new StringBuilder(size + 16);
        s.append("{\"id\":").append(index)
            .append(",\"user\":\"user-").append(random.nextInt(10_000))
            .append("\",\"event\":\"").append(EVENTS[random.nextInt(EVENTS.length)])
            .append("\",\"page\":\"/").append(PAGES[random.nextInt(PAGES.length)]).append('/').append(random.nextInt(500))
            .append("\",\"country\":\"").append(COUNTRIES[random.nextInt(COUNTRIES.length)])
            .append("\",\"amount\":").append(random.nextInt(100_000))
            .append(",\"ts\":").append(1_767_225_600_000L + index * 7)
            .append(",\"agent\":\"").append(AGENTS[random.nextInt(AGENTS.length)])
            .append("\",\"note\":\"");
        if (s.length() > size - 3) throw new IllegalArgumentException("--value-bytes " + size + " is too small for a JSON value (at least " + (s.length() + 3) + ")");
        while (s.length() < size - 2) s.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        s.setLength(size - 2);
        s.append("\"}");
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * `name=value`: what Connect's InsertField$Value with static.field = name and static.value =
     * value makes of a value, read and written by JsonConverter with schemas.enable=false.
     */
    static UnaryOperator<byte[]> insertField(String spec) {
        int eq = spec.indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("--insert-field takes name=value, got " + spec);
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "false"), false);
        InsertField.Value<SourceRecord> insert = new InsertField.Value<>();
        insert.configure(Map.of("static.field", spec.substring(0, eq), "static.value", spec.substring(eq + 1)));
        return (bytes) -> {
            SchemaAndValue data = converter.toConnectData("t", bytes);
            SourceRecord record = new SourceRecord(null, null, "t", 0, null, null, data.schema(), data.value());
            SourceRecord out = insert.apply(record);
            return converter.fromConnectData("t", out.valueSchema(), out.value());
        };
    }
}
