// keyroute/memjs: memcached through a live view with memjs clients (one per node).

import type { LiveView } from './index.js'

/** What ViewClient needs of a memcached client: memjs's promise API. */
export interface MemjsLike {
  get(key: string): Promise<{ value: Buffer | null; flags?: unknown }>
  set(key: string, value: string | Buffer, options?: { expires?: number }): Promise<boolean>
  add(key: string, value: string | Buffer, options?: { expires?: number }): Promise<boolean>
  delete(key: string): Promise<boolean>
}

/** memcached through a LiveView, with dual reads and the write rules during a rollout. */
export declare class ViewClient<C extends MemjsLike = MemjsLike> {
  constructor(
    view: LiveView,
    clients: Record<string, C> | Map<string, C> | ((node: string) => C),
    options?: { warmExpires?: number },
  )
  readonly view: LiveView
  client(node: string): C
  get(key: string): Promise<Buffer | null>
  set(key: string, value: string | Buffer, options?: { expires?: number }): Promise<boolean>
  add(key: string, value: string | Buffer, options?: { expires?: number }): Promise<boolean>
  delete(key: string): Promise<void>
}
