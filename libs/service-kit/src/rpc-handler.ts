import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown, SetMetadata } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { RpcContract } from '@ramp/contracts';
import { RpcServer, type RpcHandlerFn } from '@ramp/messaging';

const RPC_HANDLER = Symbol('RPC_HANDLER');

/** Marks a method of a `*.nats.controller.ts` provider as the handler of a request/reply contract. */
export const RpcHandler = (contract: RpcContract<unknown, unknown>): MethodDecorator => SetMetadata(RPC_HANDLER, contract);

/** Finds every @RpcHandler method once the application has booted and serves it on NATS. */
@Injectable()
export class RpcExplorer implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(RpcServer) private readonly server: RpcServer,
  ) {}

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const handler = instance[method];
        if (typeof handler !== 'function') continue;
        const contract = this.reflector.get<RpcContract<unknown, unknown> | undefined>(RPC_HANDLER, handler);
        if (contract) this.server.handle(contract, (handler as RpcHandlerFn<typeof contract>).bind(instance));
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server.close();
  }
}
