import { token } from './token';
import type { SchedulerLike } from '#rxjs';

/** The scheduler every timer of a flow runs on: asyncScheduler in production, virtual time in marble tests. */
export type Scheduler = SchedulerLike;
/** DI token; a token and its type share a name. */
export const Scheduler = token<Scheduler>('Scheduler');
