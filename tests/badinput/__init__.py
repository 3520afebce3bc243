"""Bad input: hostile clients, garbage, and misuse get a clear message or a clean close."""
