export { KafkajsClients, type KafkajsClientsOptions } from './kafkajs-clients';
export { principalOf } from './auth/role-principal';
