"""What the render, `size` and `plan --stack` print and write beside the resources: sizing,
predictions, charts and costs."""
