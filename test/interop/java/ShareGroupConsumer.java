import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A share-group application (KIP-932) as users write one on Kafka's own Java client: a
 * KafkaShareConsumer in a share group, acknowledging each record it processed explicitly
 * (`share.acknowledgement.mode=explicit`) and committing the acknowledgements synchronously after
 * each poll. Arguments are key=value:
 *
 *   bootstrap=HOST:PORT group=G topics=T1,T2 [reset=earliest|latest] [max=N] [toEnd=true]
 *   [stay=true] [stayMs=MS]
 *
 * `reset` sets the group's `share.auto.offset.reset` (a group config, where a partition without
 * a start offset starts) before it joins; without it the group keeps what it has (Kafka's default:
 * latest). With `max` it accepts exactly N records and releases the rest of the last poll
 * (back to the group, undelivered as far as it is concerned) in a commit after the accepted
 * ones', so every partition's start offset, as Kafka reports it (the one its last state write
 * carried), ends right after what it accepted there. With toEnd=true it stops once it has been delivered the
 * last record of each partition that has records from the group's start offset (read before it
 * joins) on; a partition without one starts where `reset` says. Otherwise after `stayMs` (default
 * 120 s); with stay=true, when stdin closes, after saying {"joined":true} once the group lists it
 * as a member (an active member, for the tests that need one).
 *
 * Each record accepted is printed as one JSON line {"record":{"topic","partition","offset","key","value"}};
 * at the end, after the last commit and the consumer's close:
 * {"result":{"records":n,"partitions":{"T-p":{"first":o,"last":o,"count":c}},"startOffsets":{"T-p":o}}},
 * `startOffsets` being the group's start offsets then (Admin.listShareGroupOffsets), -1 where it has none.
 *
 *   java -cp <kafka jars>:<classes> ShareGroupConsumer bootstrap=… group=… topics=…
 */
public final class ShareGroupConsumer {

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("expected key=value, got " + arg);
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        String bootstrap = a.get("bootstrap");
        String group = a.get("group");
        List<String> topics = List.of(a.get("topics").split(","));
        long max = Long.parseLong(a.getOrDefault("max", String.valueOf(Long.MAX_VALUE)));
        boolean toEnd = Boolean.parseBoolean(a.getOrDefault("toEnd", "false"));
        boolean stay = Boolean.parseBoolean(a.getOrDefault("stay", "false"));
        long deadline = System.currentTimeMillis() + Long.parseLong(a.getOrDefault("stayMs", "120000"));
        String reset = a.get("reset");

        Properties adminProps = new Properties();
        adminProps.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            if (reset != null) {
                ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
                AlterConfigOp op = new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", reset), AlterConfigOp.OpType.SET);
                admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
            }
            // Per partition with records from where the group starts: the offset of its last record.
            Map<TopicPartition, Long> lastToRead = toEnd ? lastToRead(admin, group, topics, reset) : Map.of();

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

            Properties props = new Properties();
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            props.put("share.acknowledgement.mode", "explicit");
            props.put("max.poll.records", "200");

            Map<String, long[]> seen = new TreeMap<>(); // first, last, count
            long records = 0;
            boolean joinedSaid = false;
            try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props)) {
                consumer.subscribe(topics);
                while (!stdinClosed.get() && System.currentTimeMillis() < deadline) {
                    boolean acknowledged = false;
                    List<ConsumerRecord<byte[], byte[]>> beyondMax = new ArrayList<>();
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        acknowledged = true;
                        if (records >= max) {
                            beyondMax.add(r);
                            continue;
                        }
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        records++;
                        String tp = r.topic() + "-" + r.partition();
                        long[] s = seen.computeIfAbsent(tp, k -> new long[] {r.offset(), r.offset(), 0});
                        s[0] = Math.min(s[0], r.offset());
                        s[1] = Math.max(s[1], r.offset());
                        s[2]++;
                        Long last = lastToRead.get(new TopicPartition(r.topic(), r.partition()));
                        if (last != null && r.offset() >= last) lastToRead.remove(new TopicPartition(r.topic(), r.partition()));
                        System.out.println("{\"record\":{\"topic\":" + str(r.topic()) + ",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                            + ",\"key\":" + bytes(r.key()) + ",\"value\":" + bytes(r.value()) + "}}");
                    }
                    if (acknowledged) consumer.commitSync();
                    // Released in a commit of their own, after the accepted ones': Kafka reports the start
                    // offset its last state write carried, and only this second write carries the one
                    // past the accepted records.
                    if (!beyondMax.isEmpty()) {
                        for (ConsumerRecord<byte[], byte[]> r : beyondMax) consumer.acknowledge(r, AcknowledgeType.RELEASE);
                        consumer.commitSync();
                    }
                    if (stay && !joinedSaid && isMember(admin, group)) {
                        System.out.println("{\"joined\":true}");
                        System.out.flush();
                        joinedSaid = true;
                    }
                    if (records >= max) break;
                    if (toEnd && lastToRead.isEmpty()) break;
                }
            }

            Map<TopicPartition, SharePartitionOffsetInfo> after =
                admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group).get();
            StringBuilder out = new StringBuilder("{\"result\":{\"records\":").append(records).append(",\"partitions\":{");
            boolean first = true;
            for (Map.Entry<String, long[]> e : seen.entrySet()) {
                if (!first) out.append(',');
                first = false;
                long[] s = e.getValue();
                out.append(str(e.getKey())).append(":{\"first\":").append(s[0]).append(",\"last\":").append(s[1]).append(",\"count\":").append(s[2]).append('}');
            }
            out.append("},\"startOffsets\":{");
            first = true;
            for (Map.Entry<String, Long> e : startOffsets(after).entrySet()) {
                if (!first) out.append(',');
                first = false;
                out.append(str(e.getKey())).append(':').append(e.getValue());
            }
            out.append("}}}");
            System.out.println(out);
        }
    }

    /** Whether the group lists a member (this consumer, the only one); false while the group does not exist yet. */
    private static boolean isMember(Admin admin, String group) throws Exception {
        try {
            return !admin.describeShareGroups(List.of(group)).describedGroups().get(group).get().members().isEmpty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) return false;
            throw e;
        }
    }

    /** `T-p` → the group's start offset there, -1 where it has none. */
    private static Map<String, Long> startOffsets(Map<TopicPartition, SharePartitionOffsetInfo> offsets) {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<TopicPartition, SharePartitionOffsetInfo> e : offsets.entrySet()) {
            out.put(e.getKey().topic() + "-" + e.getKey().partition(), e.getValue() == null ? -1L : e.getValue().startOffset());
        }
        return out;
    }

    private static Map<TopicPartition, Long> lastToRead(Admin admin, String group, List<String> topics, String reset) throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> starts =
            admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group).get();
        List<TopicPartition> partitions = new ArrayList<>();
        for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get().values()) {
            d.partitions().forEach(p -> partitions.add(new TopicPartition(d.name(), p.partition())));
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (TopicPartition tp : partitions) {
            latest.put(tp, OffsetSpec.latest());
            earliest.put(tp, OffsetSpec.earliest());
        }
        var ends = admin.listOffsets(latest).all().get();
        var beginnings = admin.listOffsets(earliest).all().get();
        Map<TopicPartition, Long> last = new HashMap<>();
        for (TopicPartition tp : partitions) {
            SharePartitionOffsetInfo info = starts.get(tp);
            long end = ends.get(tp).offset();
            long start = info != null && info.startOffset() >= 0 ? info.startOffset() : "earliest".equals(reset) ? beginnings.get(tp).offset() : end;
            if (start < end) last.put(tp, end - 1);
        }
        return last;
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
