"""What a team may spend: budgets set in the admin, and the hold each run keeps against them."""
