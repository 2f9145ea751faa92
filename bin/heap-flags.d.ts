export declare const SERVICE_HEAP_FLAGS: readonly string[];
