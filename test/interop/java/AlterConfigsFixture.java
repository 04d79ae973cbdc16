import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;

/**
 * Encodes the IncrementalAlterConfigs v0 request behind
 * src/kafka/wire/fixtures/java-incremental-alter-configs-v0-request.hex with the request class
 * Kafka's Java AdminClient builds (IncrementalAlterConfigsRequest.Builder), so the wire spec
 * compares our encoder with the reference implementation's bytes. Creates the two topics the
 * request names (a third is left missing) and prints the request body as hex on stdout. Run by
 * test/interop/capture-alter-configs-fixtures.ts:
 *
 *   java -cp <kafka jars>:<classes> AlterConfigsFixture <bootstrap>
 */
public final class AlterConfigsFixture {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        try (Admin admin = Admin.create(props)) {
            Map<String, String> configs = new HashMap<>();
            configs.put("retention.bytes", "1000");
            admin.createTopics(List.of(
                new NewTopic("wire-configs", 1, (short) 1).configs(configs),
                new NewTopic("wire-configs-refused", 1, (short) 1))).all().get();
        }

        Map<ConfigResource, Collection<AlterConfigOp>> ops = new LinkedHashMap<>();
        List<AlterConfigOp> accepted = new ArrayList<>();
        accepted.add(new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET));
        accepted.add(new AlterConfigOp(new ConfigEntry("retention.bytes", null), AlterConfigOp.OpType.DELETE));
        accepted.add(new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact,delete"), AlterConfigOp.OpType.SET));
        ops.put(new ConfigResource(ConfigResource.Type.TOPIC, "wire-configs"), accepted);
        List<AlterConfigOp> refused = new ArrayList<>();
        refused.add(new AlterConfigOp(new ConfigEntry("retention.ms", "forever"), AlterConfigOp.OpType.SET));
        ops.put(new ConfigResource(ConfigResource.Type.TOPIC, "wire-configs-refused"), refused);
        List<AlterConfigOp> missing = new ArrayList<>();
        missing.add(new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET));
        ops.put(new ConfigResource(ConfigResource.Type.TOPIC, "wire-configs-missing"), missing);

        IncrementalAlterConfigsRequest request = new IncrementalAlterConfigsRequest.Builder(ops, false).build((short) 0);
        ByteBuffer body = request.serialize().buffer();
        StringBuilder hex = new StringBuilder();
        while (body.hasRemaining()) hex.append(String.format("%02x", body.get()));
        System.out.println(hex);
    }
}
