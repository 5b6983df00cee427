"""Reading: OCR line → spans → text-PII class (classifier, gazetteers, validators, screen layout)."""
