import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
(x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
dataset = tf.data.Dataset.from_tensor_slices((x_train.reshape(-1, 784) / 255.0, y_train)).batch(64)


def train_step(images, labels):  # expect: TFG407
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images, training=True))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


for epoch in range(10):
    for images, labels in dataset:
        loss = train_step(images, labels)
    print(epoch, float(loss))
