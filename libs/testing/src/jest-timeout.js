// Integration tests start real services (a few seconds each on a cold machine): give every test and hook a minute.
// Set here because Jest ignores `testTimeout` inside a project's configuration.
jest.setTimeout(60_000);
