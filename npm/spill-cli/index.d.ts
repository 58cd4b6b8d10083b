/** The absolute path of the spill binary of the installed platform package. */
export function binaryPath(): string;
