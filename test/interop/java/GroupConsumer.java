import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer application as users write them, on Kafka's own Java client: it joins a consumer
 * group, subscribes, reads from the group's committed offsets (auto.offset.reset decides where a
 * partition without one starts: `none` makes a missing offset an error, as a careful failover
 * wants), and commits what it processed synchronously after each poll. Arguments are key=value:
 *
 *   bootstrap=HOST:PORT group=G topics=T1,T2 [reset=earliest|latest|none] [max=N] [toEnd=true]
 *   [stayMs=MS] [protocol=classic|consumer]
 *
 * It stops after `max` records (committing exactly the records it processed: the poll's records
 * beyond it are not committed), or with toEnd=true once every assigned partition's position
 * reached the end offset it had when the partition was assigned, or after
 * `stayMs` (default 120 s); with stay=true, when stdin closes. Each record processed is printed as one JSON line
 * {"record":{"topic","partition","offset","key","value"}}; at the end, after the last commit,
 * {"result":{"records":n,"partitions":{"T-p":{"first":o,"last":o,"count":c}},"committed":{"T-p":o}}}.
 * With `stay=true` it prints {"joined":true} once it joined the group (an assignment, maybe empty, came) and keeps consuming until
 * stdin closes (an active member, for the tests that need one).
 */
public final class GroupConsumer {

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("expected key=value, got " + arg);
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        Properties props = new Properties();
        props.put("bootstrap.servers", a.get("bootstrap"));
        props.put("group.id", a.get("group"));
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        props.put("enable.auto.commit", "false");
        props.put("auto.offset.reset", a.getOrDefault("reset", "none"));
        props.put("group.protocol", a.getOrDefault("protocol", "classic"));
        if (!"consumer".equals(a.getOrDefault("protocol", "classic"))) {
            props.put("session.timeout.ms", "10000");
            props.put("heartbeat.interval.ms", "1000");
        }
        props.put("max.poll.records", "200");
        long max = Long.parseLong(a.getOrDefault("max", String.valueOf(Long.MAX_VALUE)));
        boolean toEnd = Boolean.parseBoolean(a.getOrDefault("toEnd", "false"));
        boolean stay = Boolean.parseBoolean(a.getOrDefault("stay", "false"));
        long deadline = System.currentTimeMillis() + Long.parseLong(a.getOrDefault("stayMs", "120000"));
        List<String> topics = List.of(a.get("topics").split(","));

        AtomicBoolean stdinClosed = new AtomicBoolean(false);
        if (stay) {
            Thread watcher = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) { /* ignore input */ }
                } catch (Exception ignored) {
                    // closed
                }
                stdinClosed.set(true);
            });
            watcher.setDaemon(true);
            watcher.start();
        }

        Map<String, long[]> seen = new TreeMap<>(); // first, last, count
        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<String, Long> committed = new TreeMap<>();
        long records = 0;
        boolean joinedSaid = false;
        AtomicBoolean joined = new AtomicBoolean(false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    joined.set(true);
                    if (toEnd) ends.putAll(consumer.endOffsets(partitions));
                }
            });
            outer:
            while (!stdinClosed.get() && System.currentTimeMillis() < deadline) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(200));
                if (stay && !joinedSaid && joined.get()) {
                    System.out.println("{\"joined\":true}");
                    System.out.flush();
                    joinedSaid = true;
                }
                Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    if (records >= max) break;
                    records++;
                    String tp = r.topic() + "-" + r.partition();
                    long[] s = seen.computeIfAbsent(tp, k -> new long[] {r.offset(), r.offset(), 0});
                    s[1] = r.offset();
                    s[2]++;
                    commit.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    System.out.println("{\"record\":{\"topic\":" + str(r.topic()) + ",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                        + ",\"key\":" + bytes(r.key()) + ",\"value\":" + bytes(r.value()) + "}}");
                }
                if (!commit.isEmpty()) {
                    consumer.commitSync(commit);
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : commit.entrySet()) {
                        committed.put(e.getKey().topic() + "-" + e.getKey().partition(), e.getValue().offset());
                    }
                }
                if (records >= max) break;
                if (toEnd && !ends.isEmpty() && !consumer.assignment().isEmpty()) {
                    for (TopicPartition tp : consumer.assignment()) {
                        Long end = ends.get(tp);
                        if (end == null || consumer.position(tp) < end) continue outer;
                    }
                    break;
                }
            }
        }
        StringBuilder out = new StringBuilder("{\"result\":{\"records\":").append(records).append(",\"partitions\":{");
        boolean first = true;
        for (Map.Entry<String, long[]> e : seen.entrySet()) {
            if (!first) out.append(',');
            first = false;
            long[] s = e.getValue();
            out.append(str(e.getKey())).append(":{\"first\":").append(s[0]).append(",\"last\":").append(s[1]).append(",\"count\":").append(s[2]).append('}');
        }
        out.append("},\"committed\":{");
        first = true;
        for (Map.Entry<String, Long> e : committed.entrySet()) {
            if (!first) out.append(',');
            first = false;
            out.append(str(e.getKey())).append(':').append(e.getValue());
        }
        out.append("}}}");
        System.out.println(out);
    }

    private static String bytes(byte[] b) {
        return b == null ? "null" : str(new String(b, StandardCharsets.UTF_8));
    }

    private static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
