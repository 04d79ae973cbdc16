/*
 * The bytes each local broker has served to consumers from one topic: Kafka's own broker metric
 * kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,topic=T (its Count), which counts what
 * Fetch requests of consumers read and leaves out what followers replicate (the broker counts
 * those as ReplicationBytesOutPerSec). Read from each broker's JVM through the attach API (the
 * JVM's local management agent), so the brokers need no JMX port of their own.
 *
 *   BrokerTopicBytesOut TOPIC PID...
 *       Prints {"PID": bytes, ...}; 0 for a broker that has served nothing of the topic yet (the
 *       metric is registered at its first use).
 */
import com.sun.tools.attach.VirtualMachine;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

final class BrokerTopicBytesOut {
    private BrokerTopicBytesOut() {}

    public static void main(String[] args) throws Exception {
        String topic = args[0];
        StringBuilder out = new StringBuilder("{");
        for (int i = 1; i < args.length; i++) {
            VirtualMachine vm = VirtualMachine.attach(args[i]);
            long count;
            try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()))) {
                MBeanServerConnection server = connector.getMBeanServerConnection();
                ObjectName name = new ObjectName("kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,topic=" + topic);
                count = server.isRegistered(name) ? ((Number) server.getAttribute(name, "Count")).longValue() : 0L;
            } finally {
                vm.detach();
            }
            if (i > 1) out.append(',');
            out.append('"').append(args[i]).append("\":").append(count);
        }
        System.out.println(out.append('}'));
    }
}
