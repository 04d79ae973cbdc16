import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;

/**
 * Asks MM2's own RemoteClusterUtils (connect-mirror-client) about one cluster and prints the
 * answers as one JSON line after "RESULT ", for test/interop/remote-cluster-utils.test.ts to
 * compare with mirrorflow's. Arguments are key=value; group=, pattern= and hops= repeat:
 *
 *   bootstrap=HOST:PORT remote=ALIAS [separator=SEP] [policy=identity] [timeoutMs=N] [group=G]... [pattern=REGEX]... [hops=ALIAS]...
 *
 * A call that throws is reported as {"error": "<exception class>: <message>"} in its place.
 */
public final class RemoteClusterUtilsProbe {

    public static void main(String[] args) throws Exception {
        Map<String, List<String>> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("expected key=value, got " + arg);
            a.computeIfAbsent(arg.substring(0, eq), k -> new ArrayList<>()).add(arg.substring(eq + 1));
        }
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", one(a, "bootstrap"));
        if (a.containsKey("separator")) props.put("replication.policy.separator", one(a, "separator"));
        if (a.containsKey("policy")) {
            if (!one(a, "policy").equals("identity")) throw new IllegalArgumentException("policy takes identity only");
            props.put("replication.policy.class", "org.apache.kafka.connect.mirror.IdentityReplicationPolicy");
        }
        String remote = one(a, "remote");
        Duration timeout = Duration.ofMillis(Long.parseLong(a.getOrDefault("timeoutMs", List.of("30000")).get(0)));

        StringBuilder out = new StringBuilder("{");
        out.append("\"heartbeatTopics\":").append(strings(RemoteClusterUtils.heartbeatTopics(props)));
        out.append(",\"checkpointTopics\":").append(strings(RemoteClusterUtils.checkpointTopics(props)));
        out.append(",\"upstreamClusters\":").append(strings(RemoteClusterUtils.upstreamClusters(props)));

        out.append(",\"replicationHops\":{");
        List<String> hops = a.getOrDefault("hops", List.of());
        for (int i = 0; i < hops.size(); i++) {
            if (i > 0) out.append(',');
            out.append(str(hops.get(i))).append(':').append(RemoteClusterUtils.replicationHops(props, hops.get(i)));
        }
        out.append('}');

        out.append(",\"translateOffsets\":{");
        List<String> groups = a.getOrDefault("group", List.of());
        for (int i = 0; i < groups.size(); i++) {
            if (i > 0) out.append(',');
            out.append(str(groups.get(i))).append(':');
            try {
                out.append(offsets(RemoteClusterUtils.translateOffsets(props, remote, groups.get(i), timeout)));
            } catch (Exception e) {
                out.append(error(e));
            }
        }
        out.append('}');

        out.append(",\"translateOffsetsPattern\":{");
        List<String> patterns = a.getOrDefault("pattern", List.of());
        for (int i = 0; i < patterns.size(); i++) {
            if (i > 0) out.append(',');
            out.append(str(patterns.get(i))).append(':');
            try {
                Map<String, Map<TopicPartition, OffsetAndMetadata>> byGroup =
                    RemoteClusterUtils.translateOffsets(props, remote, Pattern.compile(patterns.get(i)), timeout);
                StringBuilder g = new StringBuilder("{");
                for (Map.Entry<String, Map<TopicPartition, OffsetAndMetadata>> e : new TreeMap<>(byGroup).entrySet()) {
                    if (g.length() > 1) g.append(',');
                    g.append(str(e.getKey())).append(':').append(offsets(e.getValue()));
                }
                out.append(g.append('}'));
            } catch (Exception e) {
                out.append(error(e));
            }
        }
        out.append("}}");
        System.out.println("RESULT " + out);
    }

    private static String one(Map<String, List<String>> a, String key) {
        List<String> values = a.get(key);
        if (values == null || values.size() != 1) throw new IllegalArgumentException("expected exactly one " + key + "=");
        return values.get(0);
    }

    /** [{"topic","partition","offset","metadata"}] sorted by topic, then partition. */
    private static String offsets(Map<TopicPartition, OffsetAndMetadata> offsets) {
        List<TopicPartition> tps = new ArrayList<>(offsets.keySet());
        tps.sort((x, y) -> x.topic().equals(y.topic()) ? Integer.compare(x.partition(), y.partition()) : x.topic().compareTo(y.topic()));
        StringBuilder b = new StringBuilder("[");
        for (TopicPartition tp : tps) {
            OffsetAndMetadata oam = offsets.get(tp);
            if (b.length() > 1) b.append(',');
            b.append("{\"topic\":").append(str(tp.topic()))
                .append(",\"partition\":").append(tp.partition())
                .append(",\"offset\":").append(oam.offset())
                .append(",\"metadata\":").append(str(oam.metadata())).append('}');
        }
        return b.append(']').toString();
    }

    private static String strings(Collection<String> values) {
        StringBuilder b = new StringBuilder("[");
        for (String v : new TreeSet<>(values)) {
            if (b.length() > 1) b.append(',');
            b.append(str(v));
        }
        return b.append(']').toString();
    }

    private static String error(Exception e) {
        return "{\"error\":" + str(e.getClass().getName() + ": " + e.getMessage()) + "}";
    }

    private static String str(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
