import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What an application's compressed JSON topic holds, written by Kafka's Java producer; and where
 * a topic's log lies on the brokers.
 *
 *   produce BOOTSTRAP TOPIC PARTITIONS RECORDS CODEC [producer k=v ...]
 *       RECORDS JSON events of about 300 bytes (keys "event-N", one header every 3rd record, a
 *       tombstone every 97th), record N to partition N % PARTITIONS, compression.type CODEC,
 *       the Java producer's default batching unless k=v says otherwise. Prints "WROTE n".
 *   log-dirs BOOTSTRAP TOPIC...
 *       One line per partition replica: "topic partition size path", path being the partition's
 *       folder on the broker (DescribeLogDirs).
 */
public class CompressedJsonTopics {
  static final String[] EVENTS = {"page_view", "add_to_cart", "checkout", "search", "login"};
  static final String[] PAGES = {"/", "/products", "/cart", "/checkout", "/account", "/search?q=shoes"};
  static final String[] COUNTRIES = {"NO", "DE", "FR", "US", "BR", "JP", "IN"};
  static final String[] WORDS = {"lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do"};

  public static void main(String[] args) throws Exception {
    if (args[0].equals("produce")) produce(args);
    else if (args[0].equals("log-dirs")) logDirs(args);
    else throw new IllegalArgumentException("produce or log-dirs");
  }

  static void produce(String[] args) throws Exception {
    String topic = args[2];
    int partitions = Integer.parseInt(args[3]);
    int records = Integer.parseInt(args[4]);
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, args[5]);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    for (int i = 6; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      props.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    long t0 = 1_700_000_000_000L;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int n = 0; n < records; n++) {
        RecordHeaders headers = new RecordHeaders();
        if (n % 3 == 0) headers.add("trace", ("t-" + n).getBytes(StandardCharsets.UTF_8));
        byte[] key = ("event-" + n).getBytes(StandardCharsets.UTF_8);
        byte[] value = n % 97 == 96 ? null : json(n).getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(topic, n % partitions, t0 + n, key, value, headers));
      }
      producer.flush();
    }
    System.out.println("WROTE " + records);
  }

  static String json(int n) {
    StringBuilder note = new StringBuilder();
    for (int i = 0; note.length() < 120; i++) note.append(i == 0 ? "" : " ").append(WORDS[(n * 7 + i * 3) % WORDS.length]);
    return "{\"id\":" + n + ",\"user\":\"user-" + (n % 1000) + "\",\"event\":\"" + EVENTS[n % EVENTS.length] + "\",\"page\":\""
        + PAGES[n % PAGES.length] + "\",\"country\":\"" + COUNTRIES[n % COUNTRIES.length] + "\",\"amount\":" + (n % 500) + "."
        + (n % 100) + ",\"ts\":" + (1_700_000_000_000L + n) + ",\"note\":\"" + note + "\"}";
  }

  static void logDirs(String[] args) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
    Set<String> topics = new HashSet<>(List.of(args).subList(2, args.length));
    try (Admin admin = Admin.create(props)) {
      List<Integer> brokers = new ArrayList<>();
      for (Node node : admin.describeCluster().nodes().get()) brokers.add(node.id());
      for (Map<String, LogDirDescription> byDir : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
        for (Map.Entry<String, LogDirDescription> dir : byDir.entrySet()) {
          for (Map.Entry<TopicPartition, ReplicaInfo> replica : dir.getValue().replicaInfos().entrySet()) {
            TopicPartition tp = replica.getKey();
            if (!topics.contains(tp.topic())) continue;
            System.out.println(tp.topic() + " " + tp.partition() + " " + replica.getValue().size() + " " + dir.getKey() + "/" + tp.topic() + "-" + tp.partition());
          }
        }
      }
    }
  }
}
