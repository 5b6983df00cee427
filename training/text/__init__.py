"""Training of the text-PII classifier (data from the synthetic engine read by the real OCR)."""
