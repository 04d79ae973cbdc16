export { KafkajsClients, type KafkajsClientsOptions } from './kafkajs-clients';
export { principalOf } from './role-principal';
