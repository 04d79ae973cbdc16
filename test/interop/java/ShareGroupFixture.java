import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka side of the share-group fixtures of src/kafka/wire/fixtures/ (KIP-932), run by
 * test/interop/capture-share-group-fixtures.ts against a Kafka 4.3 broker. Three modes:
 *
 *   <bootstrap> setup     creates `wire-share` (2 partitions) with 10 records in partition 0 and
 *                         6 in partition 1, and gives share group `wire-share-busy` start
 *                         offsets 2 and 1 with Admin.alterShareGroupOffsets;
 *   <bootstrap> requests  prints, one per line as `name=hex`, the request bodies that the request
 *                         classes Kafka's Java AdminClient uses encode: AlterShareGroupOffsets v0
 *                         for `wire-share-idle` (wire-share 0 → 3, 1 → 4, and partition 0 of the
 *                         topic `wire-share-missing`, which does not exist) and for
 *                         `wire-share-busy` (0 → 0); DescribeShareGroupOffsets v1 of
 *                         `wire-share-idle` and `wire-share-busy` (every topic) and
 *                         `wire-share-missing` (wire-share 0 and 1); ShareGroupDescribe v1 of the three;
 *   <bootstrap> member    a KafkaShareConsumer of `wire-share-busy` on wire-share that acquires
 *                         records without acknowledging them (explicit mode), says {"joined":true}
 *                         once the group lists it as a member, and stays until stdin closes.
 *
 *   java -cp <kafka jars>:<classes> ShareGroupFixture <bootstrap> <mode>
 */
public final class ShareGroupFixture {
    static final String TOPIC = "wire-share";

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        switch (args[1]) {
            case "setup" -> setup(bootstrap);
            case "requests" -> requests();
            case "member" -> member(bootstrap);
            default -> throw new IllegalArgumentException("unknown mode " + args[1]);
        }
    }

    static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    static void setup(String bootstrap) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
            Properties props = new Properties();
            props.put("bootstrap.servers", bootstrap);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>(TOPIC, 0, "k" + i, "p0 #" + i));
                for (int i = 0; i < 6; i++) producer.send(new ProducerRecord<>(TOPIC, 1, "k" + i, "p1 #" + i));
            }
            admin.alterShareGroupOffsets("wire-share-busy", Map.of(new TopicPartition(TOPIC, 0), 2L, new TopicPartition(TOPIC, 1), 1L)).all().get();
        }
    }

    static void requests() {
        AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection topics =
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection();
        topics.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName(TOPIC).setPartitions(List.of(
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition().setPartitionIndex(0).setStartOffset(3),
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition().setPartitionIndex(1).setStartOffset(4))));
        topics.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName("wire-share-missing").setPartitions(List.of(
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition().setPartitionIndex(0).setStartOffset(1))));
        print("alter-idle", new AlterShareGroupOffsetsRequest.Builder(new AlterShareGroupOffsetsRequestData().setGroupId("wire-share-idle").setTopics(topics)).build((short) 0));

        AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection busy =
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection();
        busy.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName(TOPIC).setPartitions(List.of(
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition().setPartitionIndex(0).setStartOffset(0))));
        print("alter-busy", new AlterShareGroupOffsetsRequest.Builder(new AlterShareGroupOffsetsRequestData().setGroupId("wire-share-busy").setTopics(busy)).build((short) 0));

        List<DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup> groups = new ArrayList<>();
        groups.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId("wire-share-idle").setTopics(null));
        groups.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId("wire-share-busy").setTopics(null));
        groups.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId("wire-share-missing").setTopics(List.of(
            new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic().setTopicName(TOPIC).setPartitions(List.of(0, 1)))));
        print("describe-offsets", new DescribeShareGroupOffsetsRequest.Builder(new DescribeShareGroupOffsetsRequestData().setGroups(groups)).build((short) 1));

        print("describe-groups", new ShareGroupDescribeRequest.Builder(new ShareGroupDescribeRequestData()
            .setGroupIds(List.of("wire-share-idle", "wire-share-busy", "wire-share-missing")).setIncludeAuthorizedOperations(false)).build((short) 1));
    }

    static void print(String name, AbstractRequest request) {
        ByteBuffer body = request.serialize().buffer();
        StringBuilder hex = new StringBuilder(name).append('=');
        while (body.hasRemaining()) hex.append(String.format("%02x", body.get()));
        System.out.println(hex);
    }

    static void member(String bootstrap) throws Exception {
        AtomicBoolean stdinClosed = new AtomicBoolean(false);
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
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", "wire-share-busy");
        props.put("share.acknowledgement.mode", "explicit");
        try (Admin admin = admin(bootstrap);
             KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            // Explicit mode: once records came, a poll without acknowledging them fails; they stay acquired.
            while (!stdinClosed.get() && consumer.poll(Duration.ofMillis(200)).isEmpty()) { /* until records are acquired */ }
            if (stdinClosed.get()) return;
            // The member that acquired them is listed by the group once its heartbeat is in.
            ShareGroupDescription group;
            do {
                group = admin.describeShareGroups(List.of("wire-share-busy")).describedGroups().get("wire-share-busy").get();
            } while (group.members().isEmpty() && !stdinClosed.get());
            System.out.println("{\"joined\":true}");
            System.out.flush();
            // Holds the records, and its place in the group, until stdin closes.
            watcher.join();
        }
    }
}
