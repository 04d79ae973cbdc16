export { KafkajsClients, type KafkajsClientsOptions } from './kafkajs-clients';
