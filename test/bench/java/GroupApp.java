/*
 * A consumer group as an application runs it, through BenchTool (compiled with it against the
 * Kafka jars): Kafka's own Java consumer, subscribed with a group id, committing what it
 * processed. The failover tests use it on the source (a job that stops part-way) and on the
 * target (the same group resuming there from the offsets mirrorflow synced).
 *
 *   group-consume --bootstrap B --topics t1,t2 --group G [--until-offset N] [--max-seconds S]
 *       Subscribes to the topics in group G (auto.offset.reset=earliest, no auto-commit) and
 *       consumes every partition from its committed offset up to offset N (exclusive), or, without
 *       --until-offset, up to the end offset the partition had when the command began. Then it
 *       commits each partition's position (N, or the end) and leaves the group.
 *       Prints {"partitions":{"t1-0":{"first":f,"records":n,"committed":c},…}}: the first offset
 *       it read (-1 when it read nothing), how many records it read, the offset it committed.
 *       A failover that resumes where the group stopped reads few records; one that starts
 *       over reads them all again.
 */
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

final class GroupApp {
    private GroupApp() {}

    private static final class Seen {
        long first = -1;
        long records;
    }

    static void groupConsume(BenchTool.Args args) throws Exception {
        List<String> topics = args.list("topics");
        long deadline = System.currentTimeMillis() + (args.has("max-seconds") ? args.longValue("max-seconds") : 120) * 1000L;
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args.one("bootstrap"));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args.one("group"));
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "mirrorflow-test-app");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> all = new ArrayList<>();
            for (String topic : topics) {
                for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) all.add(new TopicPartition(topic, info.partition()));
            }
            Map<TopicPartition, Long> limit = new HashMap<>();
            if (args.has("until-offset")) {
                long n = args.longValue("until-offset");
                for (TopicPartition tp : all) limit.put(tp, n);
            } else {
                limit.putAll(consumer.endOffsets(all, Duration.ofSeconds(30)));
            }
            Map<TopicPartition, Seen> seen = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
            for (TopicPartition tp : all) seen.put(tp, new Seen());
            Set<TopicPartition> done = new HashSet<>();
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    for (TopicPartition tp : partitions) {
                        if (done.contains(tp)) consumer.pause(List.of(tp));
                    }
                }
            });
            while (done.size() < all.size()) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out: " + done.size() + " of " + all.size() + " partitions done");
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() >= limit.get(tp)) continue;
                    Seen s = seen.get(tp);
                    if (s.first < 0) s.first = record.offset();
                    s.records++;
                }
                for (TopicPartition tp : consumer.assignment()) {
                    if (done.contains(tp)) continue;
                    if (consumer.position(tp) >= limit.get(tp)) {
                        done.add(tp);
                        consumer.pause(List.of(tp));
                    }
                }
            }
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            for (TopicPartition tp : all) commit.put(tp, new OffsetAndMetadata(limit.get(tp)));
            consumer.commitSync(commit);
            StringBuilder out = new StringBuilder("{\"partitions\":{");
            boolean first = true;
            for (Map.Entry<TopicPartition, Seen> e : seen.entrySet()) {
                if (!first) out.append(',');
                first = false;
                out.append(BenchTool.jsonString(e.getKey().toString())).append(":{\"first\":").append(e.getValue().first)
                    .append(",\"records\":").append(e.getValue().records).append(",\"committed\":").append(limit.get(e.getKey())).append('}');
            }
            System.out.println(out.append("}}"));
        }
    }
}
